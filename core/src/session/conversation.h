#pragma once
/// Conversation: one chat's messages as the agent loop sees them (DESIGN 4 step 2, 4.2). It
/// owns loading the session's history, recording the user message with its volatile tail,
/// keeping the history within its bounds (folds run after the reply, session/folds.h) and
/// appending what the turn produces — in the record and in the prompt's history alike. One
/// per turn, used on the turn's thread only; not thread-safe.

#include <cstdint>
#include <functional>
#include <string>
#include <string_view>
#include <vector>

#include "gantry/message.h"
#include "gantry/provider.h"
#include "gantry/status.h"
#include "session/folds.h"
#include "session/history_bounds.h"
#include "session/summary.h"
#include "store/message_repo.h"
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
  /// store and folds (null: the history is bounded in the prompt only, never folded) are not
  /// owned and outlive this; options are copied.
  Conversation(store::Store& store, Folds* folds, ConversationOptions options);
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

  /// Prepares the history for the first request. Past the bounds while a fold of the chat
  /// runs, the history is sent as it was (the fold's turns stay in it until it commits);
  /// past them otherwise (the last fold failed), the prompt leaves out what a fold would and
  /// the record keeps it. A memory block the history no longer shows then goes back into the
  /// current message (in the record too). Fails when the message recordUser() recorded is
  /// missing or the store fails. A continuation (no recordUser) or a resumed turn bounds the
  /// history as it is.
  Status bound();

  /// Records an assistant message that calls tools, with one running row per call, before
  /// any of them runs. Returns the rows in call order.
  Result<std::vector<int64_t>> recordCalls(const ChatMessage& message);

  /// Records the result of the call recorded as row and appends it as a tool message.
  /// images go with this turn's prompt only, as a user message's do (the record counts them).
  Status recordResult(int64_t row, const ToolCall& call, bool ok, const std::string& result,
                      const store::CallCost& cost, const store::CallDecision& decision = {},
                      std::vector<Image> images = {});

  /// Within a turn whose own context passes the bounds, collapses every tool result but the
  /// last kKeptToolResults, from now on (the record keeps them whole). Called after each
  /// round; below the bounds, or while a fold of the chat runs, it changes nothing, so the
  /// prompt a local model cached stays.
  void collapseIfPastBounds();

  /// True when the history in the record is past the bounds, or another turn as large as
  /// this one (or a twentieth of the bounds) would pass them: the reply asks for a fold.
  bool foldDue() const;

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

 private:
  Status showMemoryLeftOut();

  store::MessageRepo messages_;
  store::TurnRepo turns_;
  Folds* folds_;
  ConversationOptions options_;
  std::string chat_id_;
  int64_t session_id_ = 0;
  int64_t user_message_id_ = 0;
  bool resumed_ = false;
  bool tracked_ = true;    ///< the turn is open in the record (recordUser's track)
  std::string user_text_;  ///< what the user wrote this turn
  std::string hydrated_;   ///< this turn's hydration block, as hydrated
  /// What the message was sent with: hydrated_ without the rows the history shows. A row
  /// already in view is not repeated: every block stays in the history it was sent with, so
  /// repeating rows would fill the prompt with copies.
  std::string memory_block_;
  std::string now_;  ///< this turn's `[now]` text
  std::string summary_;
  std::vector<ChatMessage> history_;
  /// The record's id of each message of history_; 0 for one that is not a tool result and
  /// was added by this turn (only results are collapsed by id).
  std::vector<int64_t> ids_;
  int64_t collapsed_through_ = 0;    ///< results up to this id are sent collapsed
  bool record_past_bounds_ = false;  ///< the history bound() found was past the bounds
  std::size_t turn_start_ = 0;       ///< where this turn's messages begin in history_
  uint64_t folds_seen_ = 0;          ///< folds_->committed() when open() read the history
};

}  // namespace gantry::session
