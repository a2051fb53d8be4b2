#include "cron/scheduler.h"

#include <algorithm>
#include <chrono>
#include <exception>

#include "cron/schedule.h"
#include "log/log.h"

namespace gantry::cron {
namespace {

const char* outcomeName(const Status& status) {
  switch (status.code()) {
    case StatusCode::kOk: return "ok";
    case StatusCode::kRetry: return "retry";
    case StatusCode::kError: return "error";
    case StatusCode::kCancelled: return "cancelled";
  }
  return "error";
}

Status runGuarded(const RunTurn& run_turn, const store::CronJob& job) {
  try {
    return run_turn(job);
  } catch (const std::exception& e) {
    return Status::error(std::string("cron turn threw: ") + e.what());
  } catch (...) {
    return Status::error("cron turn threw an unknown exception");
  }
}

}  // namespace

Scheduler::Scheduler(store::Store& store, Zone zone, int tick_seconds, RunTurn run_turn,
                     Clock clock)
    : repo_(store),
      zone_(std::move(zone)),
      tick_seconds_(tick_seconds > 0 ? tick_seconds : 1),
      run_turn_(std::move(run_turn)),
      clock_(clock ? std::move(clock) : Clock(store::nowMs)) {}

// To the next job's slot, at most a tick: a wall clock set forward, or a machine resumed from
// suspend, is caught up within a tick. nullopt, wait for jobsChanged(), when no job has a next
// run. A slot already past after a pass that ran nothing (a job whose advance failed) is
// tried again a tick later, not at once.
std::optional<std::chrono::milliseconds> Scheduler::untilNextRun(int ran) {
  const std::chrono::milliseconds tick = std::chrono::seconds(tick_seconds_);
  Result<std::optional<store::CronJob>> next = repo_.nextToRun();
  if (!next.isOk()) {
    log::error("cron: cannot read the next job", {{"error", next.status().message()}});
    return tick;
  }
  if (!next->has_value()) return std::nullopt;
  const int64_t left = next->value().next_run_at.value_or(0) - clock_();
  if (left <= 0) return ran > 0 ? std::chrono::milliseconds(0) : tick;
  return std::min(tick, std::chrono::milliseconds(left));
}

int Scheduler::runDue() {
  int64_t now = clock_();
  Result<std::vector<store::CronJob>> due = repo_.due(now);
  if (!due.isOk()) {
    log::error("cron: cannot read due jobs", {{"error", due.status().message()}});
    return 0;
  }
  int ran = 0;
  for (const store::CronJob& job : due.value()) {
    if (ticker_.stopping()) break;
    runJob(job, clock_());
    ++ran;
  }
  return ran;
}

void Scheduler::runJob(const store::CronJob& job, int64_t now) {
  bool one_shot = false;
  if (!advance(job, now, &one_shot) || skipped(job, now, one_shot)) return;
  log::info("cron_run", {{"job", std::to_string(job.id)}, {"chat", job.chat_id}});
  Result<int64_t> run_id =
      repo_.recordRun({0, job.id, now, std::nullopt, "running", std::string()});
  Status outcome = runGuarded(run_turn_, job);
  int64_t finished = clock_();
  if (run_id.isOk()) {
    repo_.finishRun(run_id.value(), finished, outcomeName(outcome), outcome.message());
  }
  log::write(outcome.isOk() ? LogLevel::kInfo : LogLevel::kWarn, "cron_run_done",
             {{"job", std::to_string(job.id)},
              {"outcome", outcomeName(outcome)},
              {"dur_ms", std::to_string(finished - now)},
              {"detail", outcome.message()}});
  if (one_shot) repo_.remove(job.id);
}

// A run the gate refuses is recorded as skipped; a one-shot is kept for when it allows runs
// again, a recurring job has already moved on to its next slot.
bool Scheduler::skipped(const store::CronJob& job, int64_t now, bool one_shot) {
  std::optional<Skip> skip = gate_ ? gate_(job) : std::nullopt;
  if (!skip) return false;
  log::info("cron_run_skipped", {{"job", std::to_string(job.id)}, {"detail", skip->detail}});
  Result<int64_t> run_id = repo_.recordRun({0, job.id, now, std::nullopt, "skipped", ""});
  if (run_id.isOk()) repo_.finishRun(run_id.value(), now, "skipped", skip->detail);
  if (one_shot) repo_.setNextRun(job.id, std::max(skip->resume_at, now + 1));
  return true;
}

// Stores the slot after this one before the turn runs. False when the job must not run: its
// schedule no longer parses (it is parked with no next run) or the store refused the update.
bool Scheduler::advance(const store::CronJob& job, int64_t now, bool* one_shot) {
  Result<Schedule> schedule = parseSchedule(job.schedule);
  if (!schedule.isOk()) {
    log::error("cron: job has an invalid schedule; parked",
               {{"job", std::to_string(job.id)}, {"error", schedule.status().message()}});
    repo_.setNextRun(job.id, std::nullopt);
    return false;
  }
  *one_shot = schedule->kind == ScheduleKind::kOnce;
  std::optional<int64_t> next;
  if (!*one_shot) next = nextRunMs(schedule.value(), now, zone_.tz, job.next_run_at.value_or(now));
  Status stored = repo_.setNextRun(job.id, next);
  if (stored.isOk()) stored = repo_.setLastRun(job.id, now);
  if (!stored.isOk()) {
    log::error("cron: cannot advance job; not running it",
               {{"job", std::to_string(job.id)}, {"error", stored.message()}});
    return false;
  }
  return true;
}

}  // namespace gantry::cron
