#pragma once
/// OpenAiProvider: gantry::Provider over an OpenAI-compatible /chat/completions endpoint
/// (HTTP or HTTPS), with streaming, retries, time limits and cancellation.

#include <chrono>
#include <istream>
#include <memory>
#include <mutex>
#include <string>

#include "Poco/Net/HTTPClientSession.h"
#include "Poco/Net/HTTPResponse.h"
#include "call_interrupt.h"
#include "gantry/host.h"
#include "gantry/provider.h"
#include "openai_config.h"
#include "openai_stream.h"
#include "session_pool.h"

namespace gantry::openai {

/// Thread-safe: concurrent chat() calls use separate connections (idle ones are pooled).
class OpenAiProvider final : public Provider {
 public:
  /// host must outlive the provider.
  OpenAiProvider(Host& host, OpenAiConfig config);

  /// One model call, retried inside (connection errors, 408, 429, 5xx; at most 3 retries
  /// with backoff 1 s, 2 s, 4 s or the server's Retry-After up to 60 s) unless a streamed
  /// delta already reached the callbacks. Never throws; errors name what to check.
  Result<ChatResponse> chat(const ChatRequest& request, const StreamCallbacks* callbacks,
                            const CancelToken& cancel) noexcept override;
  std::string model() const noexcept override { return config_.model; }

  /// Longest silence a stream may keep before the call fails.
  static constexpr std::chrono::seconds kStreamSilence{120};

 private:
  using Clock = std::chrono::steady_clock;
  struct Call;
  struct Attempt;

  Result<ChatResponse> run(Call& call);
  Attempt attemptOnce(Call& call);
  static std::chrono::milliseconds retryDelay(const Call& call);
  Result<ChatResponse> exchange(Call& call, StreamAssembler& assembler);
  Result<ChatResponse> converse(Call& call, Poco::Net::HTTPClientSession& session,
                                StreamAssembler& assembler, bool* reusable);
  static bool endOfBody(Poco::Net::HTTPClientSession& session, std::istream& in);
  Result<ChatResponse> readStream(Call& call, Poco::Net::HTTPClientSession& session,
                                  std::istream& body, StreamAssembler& assembler);
  std::unique_ptr<Poco::Net::HTTPClientSession> newSession() const;
  void prepareSession(Call& call, Poco::Net::HTTPClientSession& session);
  void setReadTimeout(Call& call, Poco::Net::HTTPClientSession& session);
  Status timeoutStatus(const Call& call) const;
  Status httpFailure(Call& call, const Poco::Net::HTTPResponse& response, std::istream& in);
  Status bodyFailure(const std::string& detail) const;
  void logCall(const Call& call, const Result<ChatResponse>& result);
  /// encodeTools(*tools), kept while the same list comes back; null for no tools.
  std::shared_ptr<const std::string> encodedTools(const ToolList& tools);

  Host& host_;
  OpenAiConfig config_;
  std::string scheme_, host_name_, path_;
  unsigned short port_ = 0;
  SessionPool pool_;
  std::mutex tools_mutex_;
  ToolList encoded_list_;  ///< held, so its address stays its own
  std::shared_ptr<const std::string> encoded_tools_;
};

/// The module's factory: reads the configuration and builds the provider. Returns null and
/// sets *err (one line naming the variable) on failure. Never throws.
Provider* createOpenAiProvider(Host& host, std::string* err) noexcept;

}  // namespace gantry::openai
