#pragma once
/// The `ask` policy inside a round (DESIGN 8): ask the owner, wait a bounded time, and run
/// only on a fresh yes for this exact call. A continuation's call was decided already: its
/// approval is claimed instead of asked for.

#include <chrono>
#include <string>

#include "agent/turn_observer.h"
#include "approvals/approvals.h"
#include "gantry/cancel.h"
#include "store/message_repo.h"

namespace gantry::agent {

/// What the owner's decision means for one call.
struct AskOutcome {
  bool run = false;      ///< the call may run now, once
  bool waiting = false;  ///< undecided: parked, a later yes continues the turn
  std::string refusal;   ///< the tool result when it does not run
  store::CallDecision decision;
};

/// Asks about call (observer.onNotice tells the chat how to answer) and waits up to wait.
AskOutcome askOwner(approvals::Approvals& approvals, const approvals::AskedCall& call,
                    std::chrono::milliseconds wait, const CancelToken& cancel,
                    TurnObserver& observer);

/// Claims approval_id for call, decided before this turn began.
AskOutcome claimDecided(approvals::Approvals& approvals, const approvals::AskedCall& call,
                        const std::string& approval_id);

}  // namespace gantry::agent
