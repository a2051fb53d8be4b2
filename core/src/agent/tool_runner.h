#pragma once
/// ToolRunner: runs the calls of one model round — resolved, concurrently (calls to one
/// serialized source one at a time), each with its timeout, results truncated and kept in
/// call order.

#include <chrono>
#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "agent/turn_observer.h"
#include "approvals/approvals.h"
#include "gantry/cancel.h"
#include "gantry/message.h"
#include "store/message_repo.h"
#include "tools/catalog.h"
#include "tools/publication.h"

namespace gantry::agent {

struct CallOutcome {
  ToolCall call;                 ///< as recorded (name repaired when it was)
  std::string tool;              ///< the tool the name resolved to; "" when no tool could be meant
  bool name_repaired = false;    ///< the model wrote the name differently (DESIGN 4.1)
  bool enabled_by_call = false;  ///< the call enabled its server (lazy publishing)
  bool ok = false;
  std::string result;         ///< truncated text fed back to the model
  std::vector<Image> images;  ///< images the result shows the model (tools::ToolResult)
  std::size_t full_chars = 0;
  int64_t dur_ms = 0;
  std::vector<std::string> candidates;  ///< names close to an unknown one (a constrained retry)
  store::CallDecision decision;         ///< the policy's decision, for the record
  bool awaiting_approval = false;       ///< not run: parked until the owner decides
};

struct RunnerOptions {
  int timeout_seconds = 120;
  std::size_t result_max_chars = 16000;
  /// APPROVAL_WAIT_SECONDS: how long an `ask` call waits for the owner within the turn.
  std::chrono::milliseconds approval_wait{std::chrono::seconds(60)};
};

/// What every call of one round shares.
struct Round {
  tools::Catalog& catalog;
  const std::string& chat_id;
  const CancelToken& cancel;
  const RunnerOptions& options;
  TurnObserver& observer;
  approvals::Approvals* approvals = nullptr;  ///< null: `ask` tools are refused
  /// A continuation's call id → the approval it was decided under (claimed, not asked).
  std::map<std::string, std::string> decided;
  /// Renews the hold of each called server (and enables one called before it was); null:
  /// everything is published.
  tools::Publication* publication = nullptr;
};

/// Truncates text to max chars (UTF-8 safe) with a note saying how much was cut.
std::string truncateResult(const std::string& text, std::size_t max_chars);

/// Runs every call of one round and returns the outcomes in call order; the caller has
/// recorded the calls before and records the outcomes after. Calls run on threads of their
/// own (one per call, or one per serialized source) and the observer hears of each start and
/// end from those threads. Blocks until every call has ended (an `ask` call: until decided
/// or its wait is over). Never throws.
std::vector<CallOutcome> runRound(const std::vector<ToolCall>& calls, Round& round);

}  // namespace gantry::agent
