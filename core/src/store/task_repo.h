#pragma once
/// The api_tasks table: one row per task id the local API accepted, so a task runs once —
/// the same id and body answers from the record, a different body is refused, across
/// restarts. A row left running by a crash is closed as failed at boot, never re-run.

#include <cstdint>
#include <optional>
#include <string>

#include "store/store.h"

namespace gantry::store {

struct TaskRow {
  std::string id;
  std::string body_digest;
  std::string status;  ///< running | done | budget_exhausted | failed | cancelled
  std::string reply;
  int64_t steps = 0;
  int64_t ms = 0;
};

/// Thread-safe.
class TaskRepo {
 public:
  explicit TaskRepo(Store& store) : store_(store) {}
  /// Inserts a running row for id; false (nothing written) when id exists.
  Result<bool> start(const std::string& id, const std::string& body_digest);
  Result<std::optional<TaskRow>> find(const std::string& id);
  Status finish(const TaskRow& row);
  /// Closes rows a crash left running as failed; returns how many.
  Result<int64_t> closeInterrupted();

 private:
  Store& store_;
};

}  // namespace gantry::store
