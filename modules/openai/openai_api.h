#pragma once
/// The OpenAI chat-completions wire format: request encoding and non-streaming responses
/// (streams: openai_stream.h). Pure: no I/O, no clocks, no threads; safe to call from any
/// thread.

#include <string>
#include <string_view>
#include <vector>

#include "gantry/provider.h"
#include "gantry/status.h"

namespace gantry::openai {

/// What the request carries beside the ChatRequest itself.
struct RequestOptions {
  std::string_view model;
  int max_tokens = 4096;  ///< 0: max_tokens is left out (the server's default applies)
  bool stream = false;    ///< also asks for usage in the stream (stream_options)
  /// encodeTools(*request.tools) when the caller kept it from an earlier call with the same
  /// list; null: encoded here.
  const std::string* encoded_tools = nullptr;
};

/// The request's "tools" array for tools, encoded as encodeRequest sends it.
std::string encodeTools(const std::vector<ToolSchema>& tools);

/// Encodes the POST body of /chat/completions. Tool parameters_json must be a JSON object
/// (empty means "no parameters"); it is copied verbatim. Fails only when
/// response_schema_json is not valid JSON. The body lives in a buffer of the calling thread:
/// it stays valid until that thread's next encodeRequest.
Result<std::string_view> encodeRequest(const ChatRequest& request, const RequestOptions& options);

/// Parses a non-streaming response body (think blocks moved to reasoning, missing call ids
/// generated). Fails with a description of what is wrong with the body.
Result<ChatResponse> parseResponse(std::string_view body);

/// A reply to a grammar-constrained retry (ChatRequest::response_schema_json) that took
/// its way out, {"name": kAnswerInText, "arguments": {"text": T}}, becomes the plain text
/// reply T; any other message is left as it is.
void unwrapTextAnswer(ChatMessage& message);

/// The error text of an API error body ({"error":{"message":…}} or {"error":"…"}), or ""
/// when the body carries none.
std::string apiErrorMessage(std::string_view body);

/// A fresh tool-call id for calls the model sent without one.
std::string generateCallId();

}  // namespace gantry::openai
