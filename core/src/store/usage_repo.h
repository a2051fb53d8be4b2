#pragma once
/// The usage record: one row per model call (turns, summary folds, consolidation), for
/// `gantry usage` and /status.

#include <cstdint>
#include <string>
#include <vector>

#include "store/store.h"

namespace gantry::store {

struct UsageRow {
  int64_t at = 0;  ///< ms since the epoch
  std::string model;
  int64_t prompt_tokens = 0;
  int64_t completion_tokens = 0;
  int64_t cached_tokens = 0;
  bool estimated = false;  ///< the endpoint reported no usage: chars/4 estimates
  int64_t dur_ms = 0;
  std::string outcome;  ///< ok | error | cancelled
};

/// Totals of one UTC day, or of one model on that day.
struct UsageDay {
  std::string date;   ///< YYYY-MM-DD
  std::string model;  ///< the model the calls' responses named; "" for every model
  int64_t calls = 0, prompt_tokens = 0, completion_tokens = 0, cached_tokens = 0;
  int64_t estimated_calls = 0;  ///< calls whose tokens are estimates
};

/// Thread-safe.
class UsageRepo {
 public:
  explicit UsageRepo(Store& store) : store_(store) {}
  /// Appends the call's row and, when given, sets the heartbeat's last model outcome
  /// (HeartbeatRepo), both in one transaction.
  Status record(const UsageRow& row, const std::string* model_outcome = nullptr);
  /// One row per UTC day with calls, oldest first, over the last `days` days up to now_ms;
  /// by_model: one row per day and model, each day's models by name.
  Result<std::vector<UsageDay>> daily(int days, int64_t now_ms, bool by_model = false);

 private:
  Store& store_;
};

}  // namespace gantry::store
