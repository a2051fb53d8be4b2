#pragma once
/// The approvals table (DESIGN 8): one row per `ask` call, decided once, claimed once. Every
/// state change is one conditional UPDATE, so two deciders (a chat and the CLI of another
/// process) or two runners (a waiting turn and a continuation) cannot both win.

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "store/store.h"

namespace gantry::store {

enum class ApprovalState { kPending, kApproved, kDenied, kExpired, kUsed };
/// "pending" | "approved" | "denied" | "expired" | "used".
const char* approvalStateName(ApprovalState state);

/// Whether a decision still has a turn waiting for it (kNone), or the turn ended and the
/// decision starts a continuation (kParked), or the continuation was started (kDone).
enum class FollowUp { kNone, kParked, kDone };

struct ApprovalRow {
  std::string id;
  std::string chat_id;
  std::string tool;       ///< published name
  std::string call_id;    ///< the model's id for the call
  std::string arguments;  ///< exactly as the model sent them
  std::string digest;     ///< of the tool's fingerprint, name and arguments
  int64_t created_at = 0;
  int64_t expires_at = 0;
  ApprovalState state = ApprovalState::kPending;
  std::string decided_by;  ///< chat user id, "cli" or "api"; empty while undecided
  int64_t decided_at = 0;
  FollowUp follow_up = FollowUp::kNone;
  /// MACs (approvals::Approvals) proving the daemon asked and the owner decided; a row that
  /// reached the table any other way fails them.
  std::string request_seal;
  std::string decision_seal;
};

/// Thread-safe; works across processes (the CLI decides, the daemon waits).
class ApprovalRepo {
 public:
  explicit ApprovalRepo(Store& store) : store_(store) {}

  Status insert(const ApprovalRow& row);
  /// The row with that id, or nullopt.
  Result<std::optional<ApprovalRow>> find(const std::string& id);
  /// Pending rows whose expiry passed become expired; returns them (they were pending).
  Result<std::vector<ApprovalRow>> expireDue(int64_t now_ms);
  /// Decides a pending, unexpired row (to kApproved or kDenied) with its seal; false when it
  /// was not pending or has expired by now_ms.
  Result<bool> decide(const std::string& id, ApprovalState to, const std::string& decided_by,
                      int64_t now_ms, const std::string& decision_seal);
  /// A decision that fails its seal is undone: the row is pending again (false when the row
  /// changed meanwhile).
  Result<bool> undoDecision(const std::string& id, const std::string& decision_seal);
  /// A row the daemon never asked for is expired and never followed up.
  Status disown(const std::string& id);
  /// kApproved → kUsed, once; false when the row was not approved.
  Result<bool> claim(const std::string& id);
  /// Moves follow_up from `from` to `to`; false when it was not `from`.
  Result<bool> setFollowUp(const std::string& id, FollowUp from, FollowUp to);
  /// Rows in state, oldest first.
  Result<std::vector<ApprovalRow>> withState(ApprovalState state);
  /// Rows whose follow_up is kParked, oldest first.
  Result<std::vector<ApprovalRow>> parked();
  /// At boot: pending or approved rows no turn waits for any more (a crash ended it) become
  /// parked, so a decision still continues them. Returns how many.
  Result<int64_t> parkOrphans();

 private:
  Store& store_;
};

}  // namespace gantry::store
