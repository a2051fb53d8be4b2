#pragma once
/// Open turns: a turn is open from the transaction that records its user message until the
/// one that records its reply (queued in the outbox) or the note that it failed. A turn still
/// open at start was cut short by a crash; it is continued once, and the mark that it was
/// resumed is written before the continuation does anything, so a second crash never
/// resumes it again.

#include <cstdint>
#include <string>
#include <vector>

#include "gantry/message.h"
#include "store/message_repo.h"
#include "store/store.h"

namespace gantry::store {

/// A turn left open by a crash.
struct OpenTurn {
  int64_t session_id = 0;
  std::string chat_id;
  int64_t user_message_id = 0;
  std::string user_message;  ///< its content as recorded (volatile tail included)
  bool resumed = false;      ///< a continuation already started once
};

class TurnRepo {
 public:
  explicit TurnRepo(Store& store) : store_(store) {}

  /// Appends the user message, marks its inbox rows handled and opens the session's turn, in
  /// one transaction. Returns the message's id.
  Result<int64_t> open(int64_t session_id, const ChatMessage& user,
                       const std::vector<int64_t>& inbox_ids);
  /// Opens the session's turn for a continuation (an approval decided after its turn ended),
  /// which has no message of its own: it answers the chat's last user message.
  Status openContinuation(int64_t session_id);
  /// Appends the final reply, queues it in the outbox for chat_id and closes the turn, in one
  /// transaction; with cost, the turn's row (MessageRepo::recordTurn) is written in it too.
  /// Returns the outbox id.
  Result<int64_t> closeWithReply(int64_t session_id, const std::string& chat_id,
                                 const ChatMessage& reply, const TurnCost* cost = nullptr,
                                 const StoredBudget* standing = nullptr);
  /// Queues a notice for chat_id (not part of the history) and closes the turn, in one
  /// transaction. Returns the outbox id.
  Result<int64_t> closeWithNotice(int64_t session_id, const std::string& chat_id,
                                  const std::string& text);
  /// Closes the turn without a reply (cancelled by the owner, or its chat's output is gone).
  Status close(int64_t session_id);
  /// Marks the session's open turn as resumed (before the continuation calls the model).
  Status markResumed(int64_t session_id);
  /// At start: closes the open turns that were waiting for an approval (a parked approval
  /// names one of their calls); the approval's decision continues them instead, so they are
  /// not resumed. Returns how many were closed.
  Result<int64_t> closeWaitingOnApprovals();
  /// Turns still open, oldest first.
  Result<std::vector<OpenTurn>> openTurns();

 private:
  Store& store_;
};

}  // namespace gantry::store
