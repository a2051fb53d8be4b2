#pragma once
/// What the usage record says a day has spent so far, for the daily token cap
/// (budget/daily_budget.h).

#include <cstdint>

#include "gantry/status.h"
#include "store/store.h"

namespace gantry::store {

/// Prompt plus completion tokens of the usage rows written at or after since_ms (reported,
/// or the estimates of calls whose endpoint reported none). Rows still waiting for the
/// owner's next write are not counted: call it at boot, before any model call. Thread-safe.
Result<int64_t> tokensSince(Store& store, int64_t since_ms);

}  // namespace gantry::store
