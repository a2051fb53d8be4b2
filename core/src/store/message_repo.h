#pragma once
/// The conversation record: sessions, messages, tool-call rows, turn costs. Written before
/// any external effect (DESIGN 4): the user message first, the assistant message and its
/// tool-call rows before a tool runs, results after.

#include <cstdint>
#include <string>
#include <vector>

#include "gantry/message.h"
#include "store/store.h"

namespace gantry::store {

struct StoredBudget;

/// A tool call closed at start because a crash left it running.
struct OrphanedCall {
  int64_t session_id;
  std::string call_id;
  std::string name;
};

/// How the owner's policy treated a call (DESIGN 8), kept on its row so the record explains
/// every refusal: the policy, and for `ask` the approval and who decided it when.
struct CallDecision {
  std::string policy;  ///< "allow" | "ask" | "deny"; empty when the tool did not resolve
  std::string approval_id;
  std::string decided_by;  ///< a chat user id, "cli" or "api"
  int64_t decided_at = 0;
};

/// A repair the host made of what the model sent (DESIGN 4.1), for /toolstats.
struct Repair {
  /// name_repaired | server_enabled_by_call | unknown_tool | constrained_retry |
  /// printed_call | think_promoted
  std::string kind;
  std::string tool;  ///< the tool concerned, or the name the model wrote; may be empty
};

/// Per-turn cost, for /status, /perf and the turns table.
struct TurnCost {
  int64_t session_id = 0;
  int64_t started_at = 0;
  int64_t model_ms = 0, tool_ms = 0, total_ms = 0;
  int64_t prompt_tokens = 0, completion_tokens = 0;
  std::string outcome;
  int64_t first_token_ms = -1;  ///< of the turn's first model call; -1 when not streamed
  int64_t model_calls = 0;
  int64_t tool_calls = 0;
  std::vector<Repair> repairs = {};  ///< recorded with the turn, one row each
};

/// What a finished call cost, for /toolstats.
struct CallCost {
  std::string tool;  ///< the tool it ran as (name repaired); "" when no tool was meant
  int64_t dur_ms = 0;
  int64_t result_chars = 0;  ///< before truncation
};

/// A chat's session as a turn opens it.
struct OpenedSession {
  int64_t id = 0;
  std::vector<ChatMessage> history;  ///< messages still in history, oldest first, as recorded
  std::vector<int64_t> ids;          ///< the id of each message of history
  std::string summary;               ///< the rolling summary of what left it; "" for none
  /// Tool results up to this message id are sent collapsed (DESIGN 4.2); 0 for none.
  int64_t collapsed_through = 0;
};

/// What a fold changes, all in one step: the summary, the messages that leave the history
/// and the results sent collapsed from now on.
struct Fold {
  int64_t session_id = 0;
  std::string summary;
  int64_t dropped_through = 0;  ///< messages up to this id leave the history
  int64_t collapsed_through = 0;
};

class MessageRepo {
 public:
  explicit MessageRepo(Store& store) : store_(store) {}

  /// The session of a chat, created on first use.
  Result<int64_t> session(const std::string& chat_id);
  /// The chat's session (created on first use) with its history and summary, read in one
  /// transaction.
  Result<OpenedSession> open(const std::string& chat_id);
  /// The same for a session known by id (one that does not exist comes back empty).
  Result<OpenedSession> load(int64_t session_id);
  /// Appends a message to the session's history; returns its id.
  Result<int64_t> append(int64_t session_id, const ChatMessage& message);
  /// Replaces a message's content (a user message whose text was settled after recording,
  /// before anything was sent).
  Status setContent(int64_t message_id, const std::string& content);
  /// The session's history (messages still in history), oldest first.
  Result<std::vector<ChatMessage>> history(int64_t session_id);
  /// Takes every message out of the history (/new); the rows stay in the record.
  Status clearHistory(int64_t session_id);
  /// Takes one message out of the history (a cancelled bubble re-joined into a new one).
  Status hideMessage(int64_t message_id);
  /// Applies a fold in one transaction: the new summary, the folded messages out of the
  /// history (their rows stay in the record), the collapse mark moved up (never down).
  Status commitFold(const Fold& fold);
  /// Moves the session's collapse mark up to message_id (never down).
  Status collapseThrough(int64_t session_id, int64_t message_id);

  /// Appends an assistant message that calls tools with one running row per call, in one
  /// transaction (a crash leaves both or neither). Returns the rows in call order.
  Result<std::vector<int64_t>> appendCalls(int64_t session_id, const ChatMessage& message);
  /// Closes the call's row with its result and appends the tool message, in one transaction.
  /// decision says how the owner's policy treated the call. Returns the tool message's id.
  Result<int64_t> appendResult(int64_t session_id, int64_t row_id, bool ok, const CallCost& cost,
                               const ChatMessage& tool, const CallDecision& decision = {});
  /// Closes calls left running by a crash with a synthetic error row and a matching tool
  /// message in history ("interrupted by a restart, not re-run"), so no call is ever
  /// replayed. One transaction. Returns what was closed.
  Result<std::vector<OrphanedCall>> closeOrphanedToolCalls();

  /// Appends the turn's row and one tool_repairs row per repair and, when given, replaces
  /// the chat's standing prompt parts (PromptBudgetRepo) with standing's, in one transaction.
  Status recordTurn(const TurnCost& cost, const StoredBudget* standing = nullptr);
  /// The most recent turn, if any.
  Result<TurnCost> lastTurn();
  /// Number of messages in the session's history.
  Result<int64_t> historyCount(int64_t session_id);

 private:
  Store& store_;
};

/// Serializes tool calls as the record's JSON column (and back).
std::string encodeToolCalls(const std::vector<ToolCall>& calls);
std::vector<ToolCall> decodeToolCalls(const std::string& json);

}  // namespace gantry::store
