#pragma once
/// FakeOpenAiServer: a loopback server speaking the OpenAI chat-completions API (plain JSON
/// and SSE streaming) with scripted replies, for unit tests (in process) and end-to-end tests
/// and benchmarks (through the fake_openai executable).

#include <chrono>
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "Poco/Net/HTTPServer.h"
#include "Poco/ThreadPool.h"

namespace gantry::testing {

/// One scripted reply: one line of the script (format: tests/fakes/openai/README.md).
struct ScriptedReply {
  struct Call {
    std::string id;
    std::string name;
    std::string arguments;
    std::string thought_signature;
  };
  std::string content;
  std::string reasoning;
  std::string reasoning_field = "reasoning_content";  ///< or "reasoning"
  std::vector<Call> tool_calls;
  int status = 200;
  int retry_after = -1;  ///< seconds; -1: no Retry-After header
  std::string error_message;
  std::optional<std::string> body;  ///< sent verbatim instead of a generated reply
  int delay_ms = 0;                 ///< wait before replying
  int stall_ms = 0;                 ///< streaming: silence after the first delta
  bool drop = false;                ///< close the connection without a reply
  bool close = false;               ///< close the connection after the reply (an idle timeout)
  /// streaming: close the connection after the first piece of the first tool call's
  /// arguments, without finish_reason or [DONE] (a stream cut mid-tool-call)
  bool cut_mid_call = false;
  std::optional<std::int64_t> prompt_tokens;
  std::optional<std::int64_t> completion_tokens;
  /// usage.prompt_tokens_details.cached_tokens, as OpenAI reports a prompt-cache hit.
  std::optional<std::int64_t> cached_tokens;
  /// The model the response names (an endpoint may serve a more specific name than asked
  /// for); unset: the requested one.
  std::optional<std::string> model;
};

/// Parses one script line (a JSON object). Throws std::invalid_argument naming the problem,
/// also for unknown keys.
ScriptedReply parseScriptLine(std::string_view line);

/// Serves 127.0.0.1:port (0: ephemeral) from construction until destruction. Replies are
/// consumed in order, one per chat-completions POST; without one the reply is
/// "echo: <last user text>". Thread-safe.
class FakeOpenAiServer {
 public:
  struct State;

  explicit FakeOpenAiServer(std::uint16_t port = 0);
  /// Stops serving; wakes delayed and stalled replies and joins the server threads.
  ~FakeOpenAiServer();
  FakeOpenAiServer(const FakeOpenAiServer&) = delete;
  FakeOpenAiServer& operator=(const FakeOpenAiServer&) = delete;

  /// Queues one reply given as a script line. Throws std::invalid_argument when malformed.
  void addReply(std::string_view json_line);
  /// Queues every line of a JSONL script ('#' comments and blank lines are skipped).
  void loadScript(std::string_view jsonl);
  /// Reads the script from a file. Throws std::invalid_argument (naming path and line).
  void loadScriptFile(const std::string& path);
  /// Computes the reply to a request (its whole body) when no scripted reply is queued, in
  /// place of the echo: for tests whose replies depend on what gantry sent, such as a crash
  /// loop that cannot know the order of requests. Called on a server thread, without the
  /// server's lock.
  using Responder = std::function<ScriptedReply(const std::string& body)>;
  void setResponder(Responder responder);
  /// Appends each received request body as one line to path (flushed per request).
  void setRequestsLog(const std::string& path);
  /// When set, requests need "Authorization: Bearer <key>" (else 401).
  void requireApiKey(std::string key);

  std::uint16_t port() const;
  /// http://127.0.0.1:<port>/v1
  std::string baseUrl() const;
  /// Bodies of the chat-completions requests received so far, in order, from the from-th on.
  std::vector<std::string> requests(std::size_t from = 0) const;
  /// How many chat-completions requests were received so far.
  std::size_t requestCount() const;
  /// TCP connections accepted so far (keep-alive reuse shows as fewer than requests).
  int connections() const;
  /// Connections open right now.
  int openConnections() const;
  /// Milliseconds spent handling requests so far, from a request's headers to its reply's
  /// last byte: the model's share of a client's wall time, to sub-millisecond precision.
  double handlingMs() const;
  /// One request's handling, as handlingMs() counts it.
  struct Handling {
    std::chrono::steady_clock::time_point end;
    double ms = 0;
  };
  /// Every request handled so far, in the order they ended.
  std::vector<Handling> handlings() const;

 private:
  std::shared_ptr<State> state_;
  Poco::ThreadPool pool_;
  std::unique_ptr<Poco::Net::HTTPServer> server_;
};

}  // namespace gantry::testing
