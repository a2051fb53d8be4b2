#include "cron/scheduler.h"

#include <atomic>
#include <catch2/catch.hpp>
#include <chrono>
#include <condition_variable>
#include <mutex>
#include <stdexcept>
#include <thread>

#include "cron/cron_tools.h"
#include "cron/schedule.h"
#include "cron_test_util.h"

using gantry::Status;
using gantry::cron::Scheduler;
using gantry::store::CronJob;
using gantry::store::CronRepo;

namespace {

constexpr int64_t kMinute = 60'000;
constexpr int64_t kHour = 60 * kMinute;
// 2026-11-30T22:40:00Z.
constexpr int64_t kNow = 1796078400000;

gantry::cron::Zone utcZone() { return gantry::cron::loadCronZone("UTC").value(); }

int64_t utc(const std::string& text) {
  cctz::time_point<cctz::seconds> tp;
  REQUIRE(cctz::parse("%Y-%m-%dT%H:%M", text, cctz::utc_time_zone(), &tp));
  return tp.time_since_epoch().count() * 1000;
}

CronJob makeJob(const std::string& schedule, std::optional<int64_t> next) {
  CronJob job;
  job.chat_id = "chat-1";
  job.schedule = schedule;
  job.prompt = "do " + schedule;
  job.created_at = kNow - 10L * 24 * kHour;
  job.next_run_at = next;
  return job;
}

/// Records the jobs the scheduler hands to the core.
struct Turns {
  std::vector<CronJob> seen;
  Status outcome = Status::ok();
  gantry::cron::RunTurn callback() {
    return [this](const CronJob& job) {
      seen.push_back(job);
      return outcome;
    };
  }
};

}  // namespace

TEST_CASE("a due job runs once and moves to its next slot", "[cron][scheduler]") {
  auto store = gantry::cron::test::openStore(gantry::cron::test::tempDbPath("sched_due"));
  CronRepo repo(*store);
  int64_t id = repo.add(makeJob("@every 1h", kNow - 5000)).value();
  repo.add(makeJob("@daily", kNow + kHour)).value();  // not yet due
  Turns turns;
  Scheduler scheduler(*store, utcZone(), 15, turns.callback(), [] { return kNow; });

  CHECK(scheduler.runDue() == 1);
  REQUIRE(turns.seen.size() == 1);
  CHECK(turns.seen[0].id == id);
  CHECK(turns.seen[0].prompt == "do @every 1h");
  auto job = repo.get(id).value();
  CHECK(job->next_run_at == std::optional<int64_t>(kNow - 5000 + kHour));  // from its slot
  CHECK(job->last_run_at == std::optional<int64_t>(kNow));
  auto runs = repo.runs(id).value();
  REQUIRE(runs.size() == 1);
  CHECK(runs[0].outcome == "ok");
  CHECK(runs[0].started_at == kNow);
  CHECK(runs[0].finished_at == std::optional<int64_t>(kNow));

  CHECK(scheduler.runDue() == 0);  // the same tick again runs nothing
  CHECK(turns.seen.size() == 1);
}

TEST_CASE("a job missed while the process was down runs once, then at its next future slot",
          "[cron][scheduler]") {
  auto store = gantry::cron::test::openStore(gantry::cron::test::tempDbPath("sched_missed"));
  CronRepo repo(*store);
  // Due three days ago at 09:00; three slots were missed.
  int64_t id = repo.add(makeJob("0 9 * * *", utc("2026-11-27T09:00"))).value();
  int64_t every = repo.add(makeJob("@every 15m", utc("2026-11-27T09:00"))).value();
  Turns turns;
  Scheduler scheduler(*store, utcZone(), 15, turns.callback(), [] { return kNow; });

  CHECK(scheduler.runDue() == 2);
  CHECK(scheduler.runDue() == 0);
  CHECK(turns.seen.size() == 2);
  CHECK(repo.get(id).value()->next_run_at == std::optional<int64_t>(utc("2026-12-01T09:00")));
  CHECK(repo.get(every).value()->next_run_at == std::optional<int64_t>(utc("2026-11-30T22:45")));
  CHECK(repo.runs(id).value().size() == 1);
}

TEST_CASE("a one-shot job is removed after it runs", "[cron][scheduler]") {
  auto store = gantry::cron::test::openStore(gantry::cron::test::tempDbPath("sched_once"));
  CronRepo repo(*store);
  int64_t id = repo.add(makeJob("2026-11-30T22:30", utc("2026-11-30T22:30"))).value();
  Turns turns;
  Scheduler scheduler(*store, utcZone(), 15, turns.callback(), [] { return kNow; });

  CHECK(scheduler.runDue() == 1);
  CHECK(turns.seen.size() == 1);
  CHECK(!repo.get(id).value().has_value());
  auto runs = repo.runs(id).value();
  REQUIRE(runs.size() == 1);
  CHECK(runs[0].outcome == "ok");
}

TEST_CASE("the next slot and the run are recorded before the turn runs", "[cron][scheduler]") {
  auto store = gantry::cron::test::openStore(gantry::cron::test::tempDbPath("sched_order"));
  CronRepo repo(*store);
  int64_t id = repo.add(makeJob("*/5 * * * *", kNow - kMinute)).value();
  std::optional<CronJob> during;
  std::vector<gantry::store::CronRun> runs_during;
  Scheduler scheduler(
      *store, utcZone(), 15,
      [&](const CronJob& job) {
        during = repo.get(job.id).value();
        runs_during = repo.runs(job.id).value();
        return Status::ok();
      },
      [] { return kNow; });

  CHECK(scheduler.runDue() == 1);
  REQUIRE(during.has_value());
  CHECK(during->next_run_at == std::optional<int64_t>(kNow + 5 * kMinute));
  REQUIRE(runs_during.size() == 1);
  CHECK(runs_during[0].outcome == "running");
  CHECK(!runs_during[0].finished_at.has_value());
  CHECK(repo.runs(id).value()[0].outcome == "ok");
}

TEST_CASE("a failing or throwing turn is recorded as an error with its message",
          "[cron][scheduler]") {
  auto store = gantry::cron::test::openStore(gantry::cron::test::tempDbPath("sched_fail"));
  CronRepo repo(*store);
  int64_t failing = repo.add(makeJob("@hourly", kNow - 1)).value();
  int64_t throwing = repo.add(makeJob("@daily", kNow - 1)).value();
  Scheduler scheduler(
      *store, utcZone(), 15,
      [&](const CronJob& job) -> Status {
        if (job.id == throwing) throw std::runtime_error("boom");
        return Status::error("provider: HTTP 500");
      },
      [] { return kNow; });

  CHECK(scheduler.runDue() == 2);
  auto failed = repo.runs(failing).value();
  REQUIRE(failed.size() == 1);
  CHECK(failed[0].outcome == "error");
  CHECK(failed[0].detail == "provider: HTTP 500");
  auto threw = repo.runs(throwing).value();
  REQUIRE(threw.size() == 1);
  CHECK(threw[0].outcome == "error");
  CHECK(threw[0].detail == "cron turn threw: boom");
  CHECK(repo.get(failing).value()->next_run_at == std::optional<int64_t>(utc("2026-11-30T23:00")));
}

TEST_CASE("a job with a schedule that no longer parses is parked, not run", "[cron][scheduler]") {
  auto store = gantry::cron::test::openStore(gantry::cron::test::tempDbPath("sched_parked"));
  CronRepo repo(*store);
  int64_t id = repo.add(makeJob("0 25 * * *", kNow - 1)).value();
  Turns turns;
  Scheduler scheduler(*store, utcZone(), 15, turns.callback(), [] { return kNow; });
  scheduler.runDue();
  CHECK(turns.seen.empty());
  CHECK(!repo.get(id).value()->next_run_at.has_value());
  CHECK(scheduler.runDue() == 0);
}

TEST_CASE("a job added by the tool survives reopening the store and then fires",
          "[cron][scheduler]") {
  std::string path = gantry::cron::test::tempDbPath("sched_reopen");
  {
    auto store = gantry::cron::test::openStore(path);
    gantry::cron::CronTools tools(*store, utcZone(), 50, [] { return kNow; });
    gantry::tools::CallContext context;
    context.chat_id = "chat-9";
    auto added =
        tools.call("cron_add", R"({"schedule":"2026-11-30T23:00","prompt":"stretch"})", context);
    REQUIRE(added.ok);
  }
  auto store = gantry::cron::test::openStore(path);
  Turns turns;
  int64_t later = utc("2026-11-30T23:00") + 3000;
  Scheduler scheduler(*store, utcZone(), 15, turns.callback(), [&] { return later; });
  CHECK(scheduler.runDue() == 1);
  REQUIRE(turns.seen.size() == 1);
  CHECK(turns.seen[0].chat_id == "chat-9");
  CHECK(turns.seen[0].prompt == "stretch");
  CHECK(CronRepo(*store).count().value() == 0);
}

TEST_CASE("the ticker thread runs a due job and stops when asked", "[cron][scheduler]") {
  auto store = gantry::cron::test::openStore(gantry::cron::test::tempDbPath("sched_thread"));
  CronRepo repo(*store);
  repo.add(makeJob("@hourly", gantry::store::nowMs() - 1000)).value();
  std::mutex mutex;
  std::condition_variable fired;
  int count = 0;
  Scheduler scheduler(*store, utcZone(), 1, [&](const CronJob&) {
    std::lock_guard lock(mutex);
    ++count;
    fired.notify_all();
    return Status::ok();
  });
  scheduler.start();
  {
    std::unique_lock lock(mutex);
    // Generous: only guards against a hang.
    fired.wait_for(lock, std::chrono::seconds(60), [&] { return count > 0; });
  }
  scheduler.stop();
  std::lock_guard lock(mutex);
  CHECK(count == 1);
}

TEST_CASE("stop wakes a ticker that waits for a long tick", "[cron][scheduler]") {
  auto store = gantry::cron::test::openStore(gantry::cron::test::tempDbPath("sched_stop"));
  CronRepo(*store).add(makeJob("@hourly", gantry::store::nowMs() + kHour)).value();
  std::atomic<int> looks{0};  // a pass with a job ahead reads the clock twice
  Scheduler scheduler(
      *store, utcZone(), 3600, [](const CronJob&) { return Status::ok(); },
      [&] {
        ++looks;
        return gantry::store::nowMs();
      });
  scheduler.start();
  scheduler.start();  // idempotent: one ticker, one first pass
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(10);
  while (looks.load() < 2 && std::chrono::steady_clock::now() < deadline) {
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
  }
  REQUIRE(looks.load() == 2);  // one pass: the ticker now waits an hour for the job's slot
  const auto stopping = std::chrono::steady_clock::now();
  scheduler.stop();
  CHECK(std::chrono::steady_clock::now() - stopping < std::chrono::seconds(5));
  scheduler.stop();
  CHECK(looks.load() == 2);  // woken to stop, not to look again
}

namespace {

/// Signals each turn the ticker thread runs.
struct Fired {
  std::mutex mutex;
  std::condition_variable cv;
  int count = 0;
  gantry::cron::RunTurn callback() {
    return [this](const CronJob&) {
      std::lock_guard lock(mutex);
      ++count;
      cv.notify_all();
      return Status::ok();
    };
  }
  /// Generous: only guards against a hang.
  bool awaitOne() {
    std::unique_lock lock(mutex);
    return cv.wait_for(lock, std::chrono::seconds(60), [&] { return count > 0; });
  }
};

}  // namespace

TEST_CASE("with no job the ticker does not wake until one is added", "[cron][scheduler]") {
  auto store = gantry::cron::test::openStore(gantry::cron::test::tempDbPath("sched_no_jobs"));
  std::atomic<int> looks{0};  // each pass reads the clock
  Scheduler scheduler(
      *store, utcZone(), 1, [](const CronJob&) { return Status::ok(); },
      [&] {
        ++looks;
        return gantry::store::nowMs();
      });
  scheduler.start();
  std::this_thread::sleep_for(std::chrono::milliseconds(1500));  // a tick and a half
  scheduler.stop();
  CHECK(looks.load() == 1);  // the first pass only
}

TEST_CASE("while a job is scheduled the ticker looks again every tick", "[cron][scheduler]") {
  auto store = gantry::cron::test::openStore(gantry::cron::test::tempDbPath("sched_far_job"));
  CronRepo(*store).add(makeJob("@hourly", gantry::store::nowMs() + kHour)).value();
  std::atomic<int> looks{0};
  Scheduler scheduler(
      *store, utcZone(), 1, [](const CronJob&) { return Status::ok(); },
      [&] {
        ++looks;
        return gantry::store::nowMs();
      });
  scheduler.start();
  // A pass with a job ahead reads the clock twice: a third read is the next tick's pass.
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(10);
  while (looks.load() < 3 && std::chrono::steady_clock::now() < deadline) {
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  scheduler.stop();
  CHECK(looks.load() >= 3);  // a clock set forward is caught up within a tick
}

TEST_CASE("a job added by cron_add wakes a ticker that has no job", "[cron][scheduler]") {
  auto store = gantry::cron::test::openStore(gantry::cron::test::tempDbPath("sched_added"));
  Fired fired;
  const int64_t later = utc("2026-11-30T23:00") + 1000;
  std::atomic<int> looks{0};
  Scheduler scheduler(*store, utcZone(), 3600, fired.callback(), [&] {
    ++looks;
    return later;
  });
  gantry::cron::CronTools tools(
      *store, utcZone(), 50, [] { return kNow; }, [&] { scheduler.jobsChanged(); });
  scheduler.start();
  // The first pass, which found nothing, is over: the job must wake the ticker's wait.
  while (looks.load() == 0) std::this_thread::sleep_for(std::chrono::milliseconds(10));
  std::this_thread::sleep_for(std::chrono::milliseconds(200));
  gantry::tools::CallContext context;
  context.chat_id = "chat-1";
  REQUIRE(
      tools.call("cron_add", R"({"schedule":"2026-11-30T23:00","prompt":"stretch"})", context).ok);
  CHECK(fired.awaitOne());  // not an hour's tick later
  scheduler.stop();
}

TEST_CASE("the ticker sleeps to the next job's slot, not to the end of its tick",
          "[cron][scheduler]") {
  auto store = gantry::cron::test::openStore(gantry::cron::test::tempDbPath("sched_slot"));
  CronRepo(*store).add(makeJob("@hourly", gantry::store::nowMs() + 300)).value();
  Fired fired;
  Scheduler scheduler(*store, utcZone(), 3600, fired.callback());
  scheduler.start();
  CHECK(fired.awaitOne());
  scheduler.stop();
}

TEST_CASE("a run the gate refuses is recorded as skipped, and a skipped one-shot waits",
          "[cron][scheduler]") {
  auto store = gantry::cron::test::openStore(gantry::cron::test::tempDbPath("sched_gate"));
  CronRepo repo(*store);
  int64_t hourly = repo.add(makeJob("@hourly", kNow - kMinute)).value();
  int64_t once = repo.add(makeJob("2026-11-30T22:30", utc("2026-11-30T22:30"))).value();
  Turns turns;
  Scheduler scheduler(*store, utcZone(), 15, turns.callback(), [] { return kNow; });
  scheduler.setGate([](const CronJob&) -> std::optional<gantry::cron::Skip> {
    return gantry::cron::Skip{"daily token cap reached", kNow + 2 * kHour};
  });

  CHECK(scheduler.runDue() == 2);
  CHECK(turns.seen.empty());
  for (int64_t id : {hourly, once}) {
    auto runs = repo.runs(id).value();
    REQUIRE(runs.size() == 1);
    CHECK(runs[0].outcome == "skipped");
    CHECK(runs[0].detail == "daily token cap reached");
  }
  CHECK(repo.get(hourly).value()->next_run_at == utc("2026-11-30T23:00"));
  CHECK(repo.get(once).value()->next_run_at == kNow + 2 * kHour);
}
