#pragma once
/// Cron jobs and their run record (tables cron_jobs, cron_runs).

#include <cstdint>
#include <optional>
#include <string>
#include <variant>
#include <vector>

#include "store/store.h"

namespace gantry::store {

/// One scheduled job. Timestamps are Unix ms.
struct CronJob {
  int64_t id = 0;
  std::string chat_id;   ///< the chat that created it; runs push their reply there
  std::string schedule;  ///< the schedule text as accepted by cron::parseSchedule
  std::string prompt;
  int64_t created_at = 0;
  std::optional<int64_t> next_run_at;  ///< null: never runs again
  std::optional<int64_t> last_run_at;
};

/// One recorded run of a job.
struct CronRun {
  int64_t id = 0;
  int64_t job_id = 0;
  int64_t started_at = 0;
  std::optional<int64_t> finished_at;
  std::string outcome;  ///< "ok", "error", "cancelled", ...
  std::string detail;
};

/// Thread-safe (every call takes the store's lock). Failures come back as error values
/// naming the operation; nothing throws.
class CronRepo {
 public:
  explicit CronRepo(Store& store) : store_(store) {}

  /// Inserts a job and returns its id.
  Result<int64_t> add(const CronJob& job);
  /// Inserts a job unless `max_jobs` jobs exist already (checked and inserted under one lock,
  /// so concurrent calls cannot overshoot); nullopt when the limit is reached.
  Result<std::optional<int64_t>> addWithinLimit(const CronJob& job, int64_t max_jobs);
  /// Every job, by id; or only the jobs of `chat_id` when it is given.
  Result<std::vector<CronJob>> list(const std::optional<std::string>& chat_id = std::nullopt);
  Result<std::optional<CronJob>> get(int64_t id);
  /// Deletes a job; false when there was none with that id.
  Result<bool> remove(int64_t id);
  Result<int64_t> count();
  /// Jobs whose next run is at or before now_ms, earliest first.
  Result<std::vector<CronJob>> due(int64_t now_ms);
  /// The job that runs next, if any job has a next run.
  Result<std::optional<CronJob>> nextToRun();
  Status setNextRun(int64_t id, std::optional<int64_t> next_run_at);
  Status setLastRun(int64_t id, int64_t last_run_at);
  /// Records one run and returns its id.
  Result<int64_t> recordRun(const CronRun& run);
  /// Completes a run recorded with recordRun.
  Status finishRun(int64_t run_id, int64_t finished_at, const std::string& outcome,
                   const std::string& detail);
  /// The runs of a job, oldest first.
  Result<std::vector<CronRun>> runs(int64_t job_id);

 private:
  int64_t insert(const CronJob& job);  // throws Poco::Exception
  using Param = std::variant<std::string, int64_t>;
  Result<std::vector<CronJob>> select(const std::string& where_order,
                                      const std::optional<Param>& param);
  Store& store_;
};

}  // namespace gantry::store
