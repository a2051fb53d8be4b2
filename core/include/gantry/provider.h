#pragma once
/// Provider: one chat-completion call against a model endpoint.

#include <cstdint>
#include <functional>
#include <string>
#include <string_view>
#include <vector>

#include "gantry/cancel.h"
#include "gantry/message.h"
#include "gantry/status.h"

namespace gantry {

/// The name a grammar-constrained retry offers besides its candidate tools, so that the
/// model can answer in text instead of calling one (ChatRequest::response_schema_json).
inline constexpr std::string_view kAnswerInText = "answer_in_text";

/// One model call. Pointers are valid for the duration of chat() only.
struct ChatRequest {
  /// Sent first when not null: the turn's system message, kept apart so that the history
  /// after it is sent from where it lies, read-only, without a copy.
  const ChatMessage* system = nullptr;
  const std::vector<ChatMessage>* messages = nullptr;
  /// null or empty: no tools offered. The same list while the published tools stay the
  /// same, so a provider may keep its encoding of the list for as long as it keeps the list.
  ToolList tools;
  /// When non-empty, a JSON Schema (serialized) the reply must follow, sent as
  /// response_format {type: json_schema}; used for grammar-constrained tool-name retries,
  /// whose reply is {"name":…, "arguments":{…}}. The provider returns the reply that takes
  /// the schema's way out, {"name": kAnswerInText, "arguments": {"text": T}}, as the plain
  /// text reply T, and does not stream a constrained reply.
  std::string response_schema_json;
  bool stream = false;
  /// A cap on this reply's tokens below the provider's own (LLM_MAX_TOKENS); 0: that one.
  int max_tokens = 0;
};

/// Streaming callbacks, called on the provider's calling thread as deltas arrive.
struct StreamCallbacks {
  std::function<void(std::string_view text)> on_text;             ///< visible reply text
  std::function<void(std::string_view text)> on_reasoning;        ///< reasoning text
  std::function<void(int index, std::string_view name)> on_tool;  ///< a tool call began
};

struct Usage {
  int64_t prompt_tokens = 0;
  int64_t completion_tokens = 0;
  int64_t cached_tokens = 0;  ///< of prompt_tokens, served from the endpoint's prompt cache
};

/// The assistant's answer: visible content (think blocks removed), reasoning, tool calls.
struct ChatResponse {
  ChatMessage message;  ///< role kAssistant
  std::string finish_reason;
  Usage usage;
  std::string model;            ///< the model the endpoint says answered; empty when it did not say
  int64_t first_token_ms = -1;  ///< time to the first streamed delta; -1 if not streamed
  int64_t dur_ms = 0;
  int attempts = 1;
};

/// Implemented by provider modules. chat() is called from one thread at a time per
/// conversation but may be called concurrently for different purposes (turn, summary).
/// Failures come back as Status with a message fit for the user; retries of connection
/// errors, 429 and 5xx happen inside chat().
class Provider {
 public:
  virtual ~Provider() = default;
  virtual Result<ChatResponse> chat(const ChatRequest& request, const StreamCallbacks* callbacks,
                                    const CancelToken& cancel) noexcept = 0;
  /// The model name, for /status and logs.
  virtual std::string model() const noexcept = 0;
};

}  // namespace gantry
