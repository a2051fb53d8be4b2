#pragma once
/// Conversation: one chat's messages as the agent loop sees them (DESIGN 4 step 2, 4.2). It
/// owns loading the session's history, recording the user message with its volatile tail,
/// bounding the history (folding dropped turns into the rolling summary), collapsing old
/// tool results and appending what the turn produces — in the record and in the prompt's
/// history alike. One per turn, used on the turn's thread only; not thread-safe.

#include <cstdint>
#include <functional>
#include <string>
#include <string_view>
#include <vector>

#include "gantry/cancel.h"
#include "gantry/message.h"
#include "gantry/provider.h"
#include "gantry/status.h"
#include "gantry/text/shown_rows.h"
#include "session/history_bounds.h"
#include "session/summary.h"
#include "store/message_repo.h"
#include "store/session_repo.h"
#include "store/turn_repo.h"

namespace gantry::session {

/// How every conversation of the process is bounded and what its volatile tail says.
struct ConversationOptions {
  Bounds bounds;
  FoldLimits fold;
  /// The `[memory]` block for a message ("" for none); unset hydrates nothing. Called on the
  /// turn's thread.
  std::function<std::string(const std::string& text)> hydrate;
  /// The current date and time for the `[now]` line ("" for none); unset tells no time.
  std::function<std::string()> now;
};

class Conversation {
 public:
  /// store and folder (the model that folds dropped turns) are not owned and outlive this;
  /// options are copied.
  Conversation(store::Store& store, Provider& folder, ConversationOptions options);
  /// Gives the history open() borrowed back to the store's cache.
  ~Conversation();
  Conversation(const Conversation&) = delete;
  Conversation& operator=(const Conversation&) = delete;

  /// Loads the chat's session, its history and its summary. Call once, first; fails on a
  /// store error.
  Status open(const std::string& chat_id);

  /// Records the user message exactly as it will be sent, the volatile tail in front, so the
  /// next turn's request repeats it byte for byte, and opens the turn; inbox_ids (the inbox
  /// rows of the message) are marked handled in the same transaction. images go with this
  /// turn's prompt only. track false records the message without opening a turn (then the
  /// reply is not queued in the outbox either). Returns the message's id; fails on a store
  /// error (nothing recorded then).
  Result<int64_t> recordUser(const std::string& text, const std::vector<Image>& images,
                             const std::vector<int64_t>& inbox_ids, bool track = true);

  /// Opens the turn of a continuation (instead of recordUser): it has no message of its own.
  Status openContinuation();

  /// Continues the chat's turn a crash left open (instead of recordUser): marks it resumed
  /// before anything else happens. The history then ends with its user message or with
  /// tool results (an interrupted call's included). Returns the user message's id; fails
  /// when the chat has no open turn or on a store error.
  Result<int64_t> resume();

  /// Prepares the history for the first request: turns past the bounds are left out of it
  /// and leave the record's history once they are folded into the summary (a fold that
  /// fails, times out or is cancelled keeps them there and the next turn tries again), old
  /// tool results collapse, and a memory block the
  /// history already shows is taken out of the current message (in the record too). Fails
  /// when the message recordUser() recorded is missing or the store fails. A continuation
  /// (no recordUser) or a resumed turn bounds the history as it is.
  Status bound(const CancelToken& cancel);

  /// Records an assistant message that calls tools, with one running row per call, before
  /// any of them runs. Returns the rows in call order.
  Result<std::vector<int64_t>> recordCalls(const ChatMessage& message);

  /// Records the result of the call recorded as row and appends it as a tool message.
  /// images go with this turn's prompt only, as a user message's do (the record counts them).
  Status recordResult(int64_t row, const ToolCall& call, bool ok, const std::string& result,
                      const store::CallCost& cost, const store::CallDecision& decision = {},
                      std::vector<Image> images = {});

  /// Collapses every tool result but the last kKeptToolResults in the prompt's history (the
  /// record keeps them whole). Called after each round, so a long chain of calls does not
  /// carry every result.
  void collapseToolResults();

  /// Records the final assistant message, queues it in the outbox and closes the turn (one
  /// transaction) and, when given, the turn's cost and standing prompt as recordTurn does (in
  /// the same transaction, but for an untracked turn). Returns the outbox id (0 for an
  /// untracked turn, recorded only).
  Result<int64_t> recordReply(const ChatMessage& message, const store::TurnCost* cost = nullptr,
                              const store::StoredBudget* standing = nullptr);
  /// Queues a notice for the chat (a failed turn) and closes the turn. Returns the outbox id.
  Result<int64_t> closeWithNotice(const std::string& text);
  /// Closes the turn without a reply (cancelled).
  Status closeTurn();

  /// Records the cost of the turn (session filled in) and, when given, the chat's standing
  /// prompt, in one transaction; a no-op before open() succeeded. A failure is logged.
  void recordTurn(store::TurnCost cost, const store::StoredBudget* standing);

  int64_t sessionId() const { return session_id_; }
  /// The rolling summary to inject ("" for none): as open() read it, or as bound() folded it.
  const std::string& summary() const { return summary_; }
  /// The history to send, oldest first, ending with what the turn has added so far.
  const std::vector<ChatMessage>& history() const { return history_; }
  /// The same, for a model call's prompt (agent::Prompt) to move its messages out and back;
  /// nothing else is called on the conversation meanwhile.
  std::vector<ChatMessage>& lendHistory() { return history_; }

 private:
  /// Folds result.dropped into the summary and takes it out of the history's record; when
  /// the fold fails nothing changes, and the next turn tries again. True once folded.
  bool foldAway(const BoundResult& result, const CancelToken& cancel);
  bool fold(const std::vector<ChatMessage>& dropped, const CancelToken& cancel);
  Status showMemoryLeftOut();

  store::MessageRepo messages_;
  store::SessionRepo sessions_;
  store::TurnRepo turns_;
  Provider& folder_;
  ConversationOptions options_;
  std::string chat_id_;
  int64_t session_id_ = 0;
  int64_t user_message_id_ = 0;
  bool resumed_ = false;
  bool tracked_ = true;    ///< the turn is open in the record (recordUser's track)
  std::string user_text_;  ///< what the user wrote this turn
  std::string hydrated_;   ///< this turn's hydration block, as hydrated
  /// What the message was sent with: hydrated_ without the rows the history shows. A row
  /// already in view is not repeated: every block stays in the history it was sent with,
  /// and repeated rows were about a third of a bench_host prompt.
  std::string memory_block_;
  std::string now_;  ///< this turn's `[now]` text
  std::string summary_;
  std::vector<ChatMessage> history_;
  /// history_ is lent by the store's cache (store::MessageRepo::open): its first lent_
  /// messages are the loan's, as stored but for the results collapsed_ holds whole; a fold
  /// that failed left unfolded_ (the loan's oldest) in the record.
  uint64_t loan_ = 0;
  std::size_t lent_ = 0;
  std::vector<std::pair<std::size_t, std::string>> collapsed_;
  std::vector<ChatMessage> unfolded_;
  /// The memory rows the user messages of the history open() read show, as the store kept
  /// them: recordUser() leaves them out of the message's block.
  text::ShownRows shown_;
};

}  // namespace gantry::session
