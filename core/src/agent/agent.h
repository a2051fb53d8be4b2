#pragma once
/// Agent: the turn loop (DESIGN 4). Owns no sockets: it works over the Provider, the tool
/// Catalog and the Store (through a session::Conversation per turn), so it is tested with
/// fakes (tests/unit/agent/).

#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

#include "agent/cache_estimate.h"
#include "agent/prompt_budget.h"
#include "agent/tool_runner.h"
#include "agent/turn_observer.h"
#include "approvals/approvals.h"
#include "gantry/cancel.h"
#include "gantry/provider.h"
#include "session/conversation.h"
#include "store/store.h"
#include "tools/catalog.h"
#include "tools/publication.h"

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
  /// The message's inbox rows: marked handled in the transaction that records it.
  std::vector<int64_t> inbox_ids;
  /// Continue the chat's turn a crash left open instead of recording text as a new message
  /// (text and images are not used then). A turn is resumed at most once.
  bool resume = false;
  /// Asked when the turn ends cancelled: true leaves it open, so the next start resumes it
  /// (a shutdown that could not wait for it); unset or false closes it (/cancel, a bubble).
  std::function<bool()> keep_open_if_cancelled;
  /// A continuation (text and images unused): the turn that parked this approval goes on
  /// from the approved call's result (run now, once) or the denial.
  std::string approval_id;
  /// Tool rounds before the last call without tools; unset: TOOL_MAX_ITERATIONS.
  std::optional<int> max_rounds = std::nullopt;
  /// When set and cancelled (not owned; an API task's wall budget), the running model call
  /// or tool round is abandoned and the turn goes straight to its last call without tools.
  const CancelToken* wrap_up = nullptr;
  /// A cap on the reply tokens of the last call without tools; 0: the provider's own.
  int final_max_tokens = 0;
  /// Started by a cron job or a watch, not the owner: the system message says a reply of
  /// exactly [silent] posts nothing (agent/prompt.h).
  bool scheduled = false;
  /// false: the caller delivers the reply itself and a crash simply ends the turn (API
  /// tasks): no open turn is kept and nothing is queued in the outbox.
  bool track = true;
};

struct TurnResult {
  Status status;            ///< ok, cancelled, or the error the user is told about
  std::string reply;        ///< the visible reply (empty when cancelled)
  bool progressed = false;  ///< something beyond the user message was recorded
  int64_t session_id = 0;
  int64_t user_message_id = 0;
  /// The outbox row of the reply or of the failure notice (0: none recorded): confirm it
  /// once the channel has delivered it.
  int64_t outbox_id = 0;
  int model_calls = 0;
  int tool_calls = 0;
  bool rounds_exhausted = false;  ///< the reply came from the last call, tools off
  bool wrapped_up = false;        ///< request.wrap_up cut the tool rounds short
};

/// The text the owner is told when a turn fails: "⚠️ " and the error.
std::string failureNotice(const Status& status);

/// One Agent per process. run() may be called from several threads for different chats;
/// the caller serialises turns of one chat.
class Agent {
 public:
  /// provider, catalog, store and approvals are not owned and outlive the agent. The
  /// provider also folds dropped turns into the summary, on a thread of the agent's. Without
  /// approvals, `ask` tools are refused. publication (not owned) decides what each chat's calls
  /// publish; without it the whole catalog is.
  Agent(Provider& provider, tools::Catalog& catalog, store::Store& store, AgentOptions options,
        approvals::Approvals* approvals = nullptr, tools::Publication* publication = nullptr);

  /// Replaces the persona text (SIGHUP). Thread-safe; the next turn uses it.
  void setPersona(std::string text);
  /// Runs one turn to its final reply. Never throws.
  TurnResult run(const TurnRequest& request, TurnObserver& observer, const CancelToken& cancel);
  /// Blocks until no history fold is queued or running (a test's or a benchmark's wait).
  void waitForFolds() const;
  /// The parts the chat's next turn starts with (for /tokens). Any thread; a part the store
  /// cannot read comes back empty.
  StandingPrompt standingPrompt(const std::string& chat_id);

 private:
  class Turn;
  std::string persona();
  /// Keeps print as the chat's last request; returns the estimated tokens of it a prompt
  /// cache could keep from the request before. Any thread.
  std::size_t notePrompt(const std::string& chat_id, PromptPrint print);
  /// The size of the chat's published schemas by server ("" holds the built-ins).
  std::map<std::string, PartSize> schemaSizes(const std::string& chat_id) const;

  Provider& provider_;
  tools::Catalog& catalog_;
  store::Store& store_;
  AgentOptions options_;
  approvals::Approvals* approvals_;
  tools::Publication* publication_;
  std::mutex persona_mutex_;
  std::string persona_;
  /// schemaSizes' last answer, given again while the lists it came from are the same (each
  /// turn asks, and estimating every schema again each time showed in bench_host). The lists
  /// are held so that a freed list's address cannot come back as a new one's.
  struct KnownSizes {
    ToolList published;
    std::vector<ToolList> sources;
    std::map<std::string, PartSize> sizes;
  };
  mutable std::mutex sizes_mutex_;
  mutable KnownSizes known_sizes_;
  /// Each chat's last request, and its last turn's estimated tokens sent and cacheable.
  std::mutex prints_mutex_;
  std::map<std::string, PromptPrint> prints_;
  std::map<std::string, std::pair<std::size_t, std::size_t>> last_turn_cache_;
  /// The history's folds, after the reply (session/folds.h); first to go, so a running fold
  /// is cancelled before anything it uses.
  std::unique_ptr<session::Folds> folds_;
};

}  // namespace gantry::agent
