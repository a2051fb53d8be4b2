#include "agent/ask_owner.h"

#include "log/log.h"

namespace gantry::agent {
namespace {

using store::ApprovalRow;
using store::ApprovalState;

AskOutcome fromRow(const ApprovalRow& row) {
  AskOutcome out;
  out.decision = {"ask", row.id, row.decided_by, row.decided_at};
  return out;
}

/// A decided row: approved runs (once it is claimed), anything else is a tool error that
/// says which, so the model can tell the user.
AskOutcome settle(approvals::Approvals& approvals, const approvals::AskedCall& call,
                  const ApprovalRow& row) {
  AskOutcome out = fromRow(row);
  switch (row.state) {
    case ApprovalState::kApproved: {
      Status claimed = approvals.claim(
          row.id, approvals::digestOf(call.fingerprint, call.call.name, call.call.arguments));
      out.run = claimed.isOk();
      if (!out.run) {
        out.refusal = "error: " + call.call.name + " was not run: " + claimed.message() + ".";
      }
      return out;
    }
    case ApprovalState::kDenied:
      out.refusal = "error: the owner denied running " + call.call.name + " (approval " + row.id +
                    "); it was not run. Do not call it again for this; tell the user.";
      return out;
    case ApprovalState::kExpired:
      out.refusal = "error: approval " + row.id + " for " + call.call.name +
                    " expired before the owner decided; it was not run.";
      return out;
    case ApprovalState::kUsed:
      out.refusal = "error: approval " + row.id + " was already used; " + call.call.name +
                    " was not run again.";
      return out;
    case ApprovalState::kPending: break;
  }
  out.waiting = true;
  out.refusal = approvals::waitingText(row);
  return out;
}

}  // namespace

AskOutcome askOwner(approvals::Approvals& approvals, const approvals::AskedCall& call,
                    std::chrono::milliseconds wait, const CancelToken& cancel,
                    TurnObserver& observer) {
  auto requested = approvals.request(call);
  if (!requested.isOk()) {
    AskOutcome out;
    out.decision.policy = "ask";
    out.refusal = "error: " + call.call.name +
                  " needs the owner's approval, which could not be asked for (" +
                  requested.status().message() + "); it was not run.";
    return out;
  }
  observer.onNotice(approvals::requestText(requested.value()));
  auto row = approvals.await(requested->id, wait, cancel);
  if (!row.isOk()) {
    // The store failed (another process holding it, say): the call waits as undecided, and
    // is parked below so that a later decision still continues it.
    log::warn("approval_wait_failed", {{"id", requested->id}, {"error", row.status().message()}});
    row = requested.value();
  }
  if (row->state == ApprovalState::kPending) {
    auto parked = approvals.park(row->id);
    if (parked.isOk() && !parked.value()) {
      // Decided in the instant before the park: act on the decision here.
      row = approvals.await(row->id, std::chrono::milliseconds(0), cancel);
      if (!row.isOk()) return settle(approvals, call, requested.value());
    }
    if (!parked.isOk()) log::warn("approval_park_failed", {{"error", parked.status().message()}});
  }
  return settle(approvals, call, row.value());
}

AskOutcome claimDecided(approvals::Approvals& approvals, const approvals::AskedCall& call,
                        const std::string& approval_id) {
  auto row = approvals.await(approval_id, std::chrono::milliseconds(0), CancelToken{});
  if (!row.isOk()) {
    AskOutcome out;
    out.decision = {"ask", approval_id, {}, 0};
    out.refusal = "error: " + call.call.name + " was not run: " + row.status().message() + ".";
    return out;
  }
  AskOutcome out = settle(approvals, call, row.value());
  if (out.waiting) {  // a continuation only starts once decided; never run undecided
    out.waiting = false;
    out.refusal =
        "error: approval " + approval_id + " is undecided; " + call.call.name + " was not run.";
  }
  return out;
}

}  // namespace gantry::agent
