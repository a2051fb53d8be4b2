#pragma once
/// The queries behind /perf, /toolstats and /memstats (and `gantry perf|toolstats|memstats`):
/// read-only views of the record, so every process that opens the database sees the same.

#include <cstdint>
#include <string>
#include <vector>

#include "store/store.h"

namespace gantry::store {

/// One turn, as /perf shows it.
struct TurnPerf {
  int64_t started_at = 0;
  std::string chat_id;
  int64_t model_ms = 0, first_token_ms = -1, tool_ms = 0, total_ms = 0;
  int64_t model_calls = 0, tool_calls = 0;
  int64_t prompt_tokens = 0;  ///< as the endpoint reported them, all calls; 0: none reported
  std::string outcome;
};

/// The calls of one tool over the record.
struct ToolStat {
  std::string tool;
  int64_t calls = 0, ok = 0, errors = 0;
  int64_t mean_ms = 0, max_ms = 0;
  int64_t result_chars = 0;  ///< all its results, before truncation
};

/// How often the host repaired one kind of thing a model sent.
struct RepairCount {
  std::string kind;
  int64_t count = 0;
};

/// The memory table at a moment.
struct MemoryStats {
  std::vector<std::pair<std::string, int64_t>> by_kind;  ///< every kind, in DESIGN order
  int64_t active = 0, expired = 0, superseded = 0;
  int64_t conflicts = 0;       ///< unresolved contradictions with the persona
  int64_t backlog = 0;         ///< active episodes consolidation has not read yet
  int64_t database_bytes = 0;  ///< gantry.db with its -wal file
};

/// Every repair kind the record knows, in the order /toolstats lists them.
const std::vector<std::string>& repairKinds();

/// Thread-safe.
class StatsRepo {
 public:
  explicit StatsRepo(Store& store) : store_(store) {}
  /// The last `limit` turns, newest first.
  Result<std::vector<TurnPerf>> recentTurns(int limit);
  /// Every tool that ran (or was refused), most called first; calls no tool was meant by
  /// are counted as unknown_tool repairs instead.
  Result<std::vector<ToolStat>> toolStats();
  /// Every kind of repairKinds(), zero included.
  Result<std::vector<RepairCount>> repairs();
  Result<MemoryStats> memory(int64_t now_ms);

 private:
  Store& store_;
};

}  // namespace gantry::store
