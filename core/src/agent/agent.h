#pragma once
/// Agent: the turn loop (DESIGN 4). Owns no sockets: it works over the Provider, the tool
/// Catalog and the Store, so it is tested with fakes.

#include <cstdint>
#include <functional>
#include <mutex>
#include <string>
#include <vector>

#include "agent/tool_runner.h"
#include "agent/turn_observer.h"
#include "gantry/cancel.h"
#include "gantry/provider.h"
#include "store/message_repo.h"
#include "tools/catalog.h"

namespace gantry::agent {

/// Context the loop asks for but does not own: history bounds + rolling summary, the
/// memory hydration block and the time. The defaults keep everything, hydrate nothing and
/// tell no time.
class ContextHooks {
 public:
  virtual ~ContextHooks() = default;
  /// Bounds the session's history (oldest turns dropped, maybe folded into the summary);
  /// sets *summary to the summary to inject. Called once per turn on the turn's thread;
  /// a fold it runs stops when cancel is cancelled.
  virtual std::vector<ChatMessage> bound(int64_t session_id, std::vector<ChatMessage> history,
                                         std::string* summary, const CancelToken& cancel) {
    (void)session_id, (void)summary, (void)cancel;
    return history;
  }
  /// The `[memory]` block for the current message ("" for none).
  virtual std::string hydrate(const std::string& message) {
    (void)message;
    return {};
  }
  /// The current date and time for the `[now]` line ("" for none).
  virtual std::string now() { return {}; }
};

struct AgentOptions {
  int tool_max_iterations = 20;
  RunnerOptions runner;
  bool stream = false;
};

struct TurnRequest {
  std::string chat_id;
  std::string text;
  std::vector<Image> images;
  /// Called once the user message is in the record (the inbox marks it handled then).
  std::function<void()> on_recorded;
};

struct TurnResult {
  Status status;            ///< ok, cancelled, or the error the user is told about
  std::string reply;        ///< the visible reply (empty when cancelled)
  bool progressed = false;  ///< something beyond the user message was recorded
  int64_t session_id = 0;
  int64_t user_message_id = 0;
  int model_calls = 0;
  int tool_calls = 0;
};

/// One Agent per process. run() may be called from several threads for different chats;
/// the caller serialises turns of one chat.
class Agent {
 public:
  Agent(Provider& provider, tools::Catalog& catalog, store::Store& store, ContextHooks& hooks,
        AgentOptions options);

  /// Replaces the persona text (SIGHUP). Thread-safe; the next turn uses it.
  void setPersona(std::string text);
  /// Runs one turn to its final reply. Never throws.
  TurnResult run(const TurnRequest& request, TurnObserver& observer, const CancelToken& cancel);

 private:
  class Turn;
  std::string persona();

  Provider& provider_;
  tools::Catalog& catalog_;
  store::Store& store_;
  store::MessageRepo messages_;
  ContextHooks& hooks_;
  AgentOptions options_;
  std::mutex persona_mutex_;
  std::string persona_;
};

}  // namespace gantry::agent
