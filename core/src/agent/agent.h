#pragma once
/// Agent: the turn loop (DESIGN 4). Owns no sockets: it works over the Provider, the tool
/// Catalog and the Store (through a session::Conversation per turn), so it is tested with
/// fakes (tests/unit/agent/).

#include <cstdint>
#include <functional>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

#include "agent/tool_runner.h"
#include "agent/turn_observer.h"
#include "approvals/approvals.h"
#include "gantry/cancel.h"
#include "gantry/provider.h"
#include "session/conversation.h"
#include "store/store.h"
#include "tools/catalog.h"

namespace gantry::agent {

struct AgentOptions {
  /// TOOL_MAX_ITERATIONS: tool rounds before one last call with tools off.
  int tool_max_iterations = 20;
  RunnerOptions runner;
  bool stream = false;
  /// History bounds, the summary fold and the volatile tail of every turn's conversation.
  session::ConversationOptions conversation;
};

struct TurnRequest {
  std::string chat_id;
  std::string text;
  std::vector<Image> images;
  /// Called once the user message is in the record (the inbox marks it handled then).
  std::function<void()> on_recorded;
  /// A continuation (text and images unused): the turn that parked this approval goes on
  /// from the approved call's result (run now, once) or the denial.
  std::string approval_id;
  /// Tool rounds before the last call without tools; unset: TOOL_MAX_ITERATIONS.
  std::optional<int> max_rounds = std::nullopt;
};

struct TurnResult {
  Status status;            ///< ok, cancelled, or the error the user is told about
  std::string reply;        ///< the visible reply (empty when cancelled)
  bool progressed = false;  ///< something beyond the user message was recorded
  int64_t session_id = 0;
  int64_t user_message_id = 0;
  int model_calls = 0;
  int tool_calls = 0;
  bool rounds_exhausted = false;  ///< the reply came from the last call, tools off
};

/// One Agent per process. run() may be called from several threads for different chats;
/// the caller serialises turns of one chat.
class Agent {
 public:
  /// provider, catalog, store and approvals are not owned and outlive the agent. The
  /// provider also folds dropped turns into the summary. Without approvals, `ask` tools are
  /// refused.
  Agent(Provider& provider, tools::Catalog& catalog, store::Store& store, AgentOptions options,
        approvals::Approvals* approvals = nullptr);

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
  AgentOptions options_;
  approvals::Approvals* approvals_;
  std::mutex persona_mutex_;
  std::string persona_;
};

}  // namespace gantry::agent
