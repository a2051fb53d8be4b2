#include "store/cron_repo.h"

#include <Poco/Data/Session.h>
#include <Poco/Nullable.h>
#include <Poco/Tuple.h>

#include "store/db.h"

using Poco::Data::Keywords::into;
using Poco::Data::Keywords::now;
using Poco::Data::Keywords::use;

namespace gantry::store {
namespace {

using JobRow = Poco::Tuple<Poco::Int64, std::string, std::string, std::string, Poco::Int64,
                           NullableInt, NullableInt>;
using RunRow =
    Poco::Tuple<Poco::Int64, Poco::Int64, Poco::Int64, NullableInt, std::string, std::string>;

constexpr const char* kJobColumns =
    "SELECT id, chat_id, schedule, prompt, created_at, next_run_at, last_run_at FROM cron_jobs ";

CronJob toJob(const JobRow& row) {
  CronJob job;
  job.id = row.get<0>();
  job.chat_id = row.get<1>();
  job.schedule = row.get<2>();
  job.prompt = row.get<3>();
  job.created_at = row.get<4>();
  job.next_run_at = toOptional(row.get<5>());
  job.last_run_at = toOptional(row.get<6>());
  return job;
}

CronRun toRun(const RunRow& row) {
  CronRun run;
  run.id = row.get<0>();
  run.job_id = row.get<1>();
  run.started_at = row.get<2>();
  run.finished_at = toOptional(row.get<3>());
  run.outcome = row.get<4>();
  run.detail = row.get<5>();
  return run;
}

Status failure(const std::string& what, const Poco::Exception& e) {
  return Status::error("store: cron " + what + ": " + e.displayText());
}

}  // namespace

Result<std::optional<int64_t>> CronRepo::addWithinLimit(const CronJob& job, int64_t max_jobs) {
  try {
    std::lock_guard lock(store_.mutex());
    Poco::Int64 n = 0;
    store_.db().session << "SELECT count(*) FROM cron_jobs", into(n), now;
    if (n >= max_jobs) return std::optional<int64_t>();
    return std::optional<int64_t>(insert(job));
  } catch (const Poco::Exception& e) {
    return failure("add", e);
  }
}

Result<int64_t> CronRepo::add(const CronJob& job) {
  try {
    std::lock_guard lock(store_.mutex());
    return insert(job);
  } catch (const Poco::Exception& e) {
    return failure("add", e);
  }
}

// Caller holds the store's lock.
int64_t CronRepo::insert(const CronJob& job) {
  auto& session = store_.db().session;
  std::string chat = job.chat_id, schedule = job.schedule, prompt = job.prompt;
  Poco::Int64 created = job.created_at;
  NullableInt next = toNullable(job.next_run_at), last = toNullable(job.last_run_at);
  session << "INSERT INTO cron_jobs(chat_id, schedule, prompt, created_at, next_run_at, "
             "last_run_at) VALUES (?, ?, ?, ?, ?, ?)",
      use(chat), use(schedule), use(prompt), use(created), use(next), use(last), now;
  return lastInsertId(session);
}

// `where_order` holds at most one `?`, bound to `param` when given.
Result<std::vector<CronJob>> CronRepo::select(const std::string& where_order,
                                              const std::optional<Param>& param) {
  try {
    std::lock_guard lock(store_.mutex());
    std::vector<JobRow> rows;
    Poco::Data::Statement stmt(store_.db().session);
    stmt << kJobColumns << where_order, into(rows);
    std::string text;
    Poco::Int64 number = 0;
    if (param && std::holds_alternative<std::string>(*param)) {
      text = std::get<std::string>(*param);
      stmt.addBind(use(text));
    } else if (param) {
      number = std::get<int64_t>(*param);
      stmt.addBind(use(number));
    }
    stmt.execute();
    std::vector<CronJob> jobs;
    jobs.reserve(rows.size());
    for (const auto& row : rows) jobs.push_back(toJob(row));
    return jobs;
  } catch (const Poco::Exception& e) {
    return failure("select", e);
  }
}

Result<std::vector<CronJob>> CronRepo::list(const std::optional<std::string>& chat_id) {
  if (chat_id) return select("WHERE chat_id = ? ORDER BY id", Param(*chat_id));
  return select("ORDER BY id", std::nullopt);
}

Result<std::optional<CronJob>> CronRepo::get(int64_t id) {
  Result<std::vector<CronJob>> jobs = select("WHERE id = ?", Param(id));
  if (!jobs.isOk()) return jobs.status();
  if (jobs->empty()) return std::optional<CronJob>();
  return std::optional<CronJob>(jobs->front());
}

Result<bool> CronRepo::remove(int64_t id) {
  try {
    std::lock_guard lock(store_.mutex());
    Poco::Int64 i = id;
    Poco::Data::Statement stmt(store_.db().session);
    stmt << "DELETE FROM cron_jobs WHERE id = ?", use(i);
    return stmt.execute() > 0;
  } catch (const Poco::Exception& e) {
    return failure("remove " + std::to_string(id), e);
  }
}

Result<int64_t> CronRepo::count() {
  try {
    std::lock_guard lock(store_.mutex());
    Poco::Int64 n = 0;
    store_.db().session << "SELECT count(*) FROM cron_jobs", into(n), now;
    return n;
  } catch (const Poco::Exception& e) {
    return failure("count", e);
  }
}

Result<std::vector<CronJob>> CronRepo::due(int64_t now_ms) {
  return select("WHERE next_run_at IS NOT NULL AND next_run_at <= ? ORDER BY next_run_at, id",
                Param(now_ms));
}

Result<std::optional<CronJob>> CronRepo::nextToRun() {
  Result<std::vector<CronJob>> jobs =
      select("WHERE next_run_at IS NOT NULL ORDER BY next_run_at, id LIMIT 1", std::nullopt);
  if (!jobs.isOk()) return jobs.status();
  if (jobs->empty()) return std::optional<CronJob>();
  return std::optional<CronJob>(jobs->front());
}

Status CronRepo::setNextRun(int64_t id, std::optional<int64_t> next_run_at) {
  try {
    std::lock_guard lock(store_.mutex());
    Poco::Int64 i = id;
    NullableInt next = toNullable(next_run_at);
    store_.db().session << "UPDATE cron_jobs SET next_run_at = ? WHERE id = ?", use(next), use(i),
        now;
    return Status::ok();
  } catch (const Poco::Exception& e) {
    return failure("set next run of job " + std::to_string(id), e);
  }
}

Status CronRepo::setLastRun(int64_t id, int64_t last_run_at) {
  try {
    std::lock_guard lock(store_.mutex());
    Poco::Int64 i = id, last = last_run_at;
    store_.db().session << "UPDATE cron_jobs SET last_run_at = ? WHERE id = ?", use(last), use(i),
        now;
    return Status::ok();
  } catch (const Poco::Exception& e) {
    return failure("set last run of job " + std::to_string(id), e);
  }
}

Result<int64_t> CronRepo::recordRun(const CronRun& run) {
  try {
    std::lock_guard lock(store_.mutex());
    auto& session = store_.db().session;
    Poco::Int64 job = run.job_id, started = run.started_at;
    NullableInt finished = toNullable(run.finished_at);
    std::string outcome = run.outcome, detail = run.detail;
    session << "INSERT INTO cron_runs(job_id, started_at, finished_at, outcome, detail) "
               "VALUES (?, ?, ?, ?, ?)",
        use(job), use(started), use(finished), use(outcome), use(detail), now;
    return lastInsertId(session);
  } catch (const Poco::Exception& e) {
    return failure("record run of job " + std::to_string(run.job_id), e);
  }
}

Status CronRepo::finishRun(int64_t run_id, int64_t finished_at, const std::string& outcome,
                           const std::string& detail) {
  try {
    std::lock_guard lock(store_.mutex());
    Poco::Int64 id = run_id, finished = finished_at;
    std::string o = outcome, d = detail;
    store_.db().session << "UPDATE cron_runs SET finished_at = ?, outcome = ?, detail = ? "
                           "WHERE id = ?",
        use(finished), use(o), use(d), use(id), now;
    return Status::ok();
  } catch (const Poco::Exception& e) {
    return failure("finish run " + std::to_string(run_id), e);
  }
}

Result<std::vector<CronRun>> CronRepo::runs(int64_t job_id) {
  try {
    std::lock_guard lock(store_.mutex());
    std::vector<RunRow> rows;
    Poco::Int64 job = job_id;
    store_.db().session << "SELECT id, job_id, started_at, finished_at, outcome, detail "
                           "FROM cron_runs WHERE job_id = ? ORDER BY id",
        use(job), into(rows), now;
    std::vector<CronRun> out;
    out.reserve(rows.size());
    for (const auto& row : rows) out.push_back(toRun(row));
    return out;
  } catch (const Poco::Exception& e) {
    return failure("runs of job " + std::to_string(job_id), e);
  }
}

}  // namespace gantry::store
