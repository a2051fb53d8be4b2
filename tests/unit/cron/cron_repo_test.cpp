#include "store/cron_repo.h"

#include <catch2/catch.hpp>

#include "cron_test_util.h"

using gantry::store::CronJob;
using gantry::store::CronRepo;
using gantry::store::CronRun;

namespace {
CronJob job(const std::string& chat, const std::string& schedule, std::optional<int64_t> next) {
  CronJob j;
  j.chat_id = chat;
  j.schedule = schedule;
  j.prompt = "prompt for " + schedule;
  j.created_at = 1000;
  j.next_run_at = next;
  return j;
}
}  // namespace

TEST_CASE("cron jobs are added, listed per chat, counted and removed", "[cron][repo]") {
  auto store = gantry::cron::test::openStore(gantry::cron::test::tempDbPath("repo_crud"));
  CronRepo repo(*store);
  auto a = repo.add(job("chat-1", "@daily", 5000));
  auto b = repo.add(job("chat-2", "@hourly", std::nullopt));
  REQUIRE(a.isOk());
  REQUIRE(b.isOk());
  CHECK(a.value() != b.value());
  CHECK(repo.count().value() == 2);

  auto all = repo.list();
  REQUIRE(all.isOk());
  REQUIRE(all->size() == 2);
  CHECK(all->at(0).schedule == "@daily");
  CHECK(all->at(0).next_run_at == std::optional<int64_t>(5000));
  CHECK(!all->at(1).next_run_at.has_value());
  CHECK(!all->at(1).last_run_at.has_value());

  auto mine = repo.list(std::string("chat-2"));
  REQUIRE(mine.isOk());
  REQUIRE(mine->size() == 1);
  CHECK(mine->at(0).prompt == "prompt for @hourly");

  CHECK(repo.remove(a.value()).value());
  CHECK(!repo.remove(a.value()).value());
  CHECK(!repo.get(a.value()).value().has_value());
  CHECK(repo.count().value() == 1);
}

TEST_CASE("due jobs are those whose next run has come, earliest first", "[cron][repo]") {
  auto store = gantry::cron::test::openStore(gantry::cron::test::tempDbPath("repo_due"));
  CronRepo repo(*store);
  auto late = repo.add(job("c", "@daily", 3000)).value();
  auto early = repo.add(job("c", "@hourly", 2000)).value();
  repo.add(job("c", "@weekly", 9000)).value();
  repo.add(job("c", "2026-01-01T00:00", std::nullopt)).value();

  auto due = repo.due(3000);
  REQUIRE(due.isOk());
  REQUIRE(due->size() == 2);
  CHECK(due->at(0).id == early);
  CHECK(due->at(1).id == late);
  CHECK(repo.nextToRun().value()->id == early);

  REQUIRE(repo.setNextRun(early, 10000).isOk());
  REQUIRE(repo.setLastRun(early, 2500).isOk());
  auto updated = repo.get(early).value();
  REQUIRE(updated.has_value());
  CHECK(updated->next_run_at == std::optional<int64_t>(10000));
  CHECK(updated->last_run_at == std::optional<int64_t>(2500));
  REQUIRE(repo.setNextRun(early, std::nullopt).isOk());
  CHECK(!repo.get(early).value()->next_run_at.has_value());
  CHECK(repo.due(3000)->size() == 1);
}

TEST_CASE("runs are recorded with time, outcome and detail", "[cron][repo]") {
  auto store = gantry::cron::test::openStore(gantry::cron::test::tempDbPath("repo_runs"));
  CronRepo repo(*store);
  auto id = repo.add(job("c", "@daily", 3000)).value();
  CronRun run;
  run.job_id = id;
  run.started_at = 100;
  run.finished_at = 250;
  run.outcome = "error";
  run.detail = "model timed out";
  REQUIRE(repo.recordRun(run).isOk());
  auto runs = repo.runs(id);
  REQUIRE(runs.isOk());
  REQUIRE(runs->size() == 1);
  CHECK(runs->at(0).started_at == 100);
  CHECK(runs->at(0).finished_at == std::optional<int64_t>(250));
  CHECK(runs->at(0).outcome == "error");
  CHECK(runs->at(0).detail == "model timed out");
}

TEST_CASE("adding within a limit refuses once the limit is reached", "[cron][repo]") {
  auto store = gantry::cron::test::openStore(gantry::cron::test::tempDbPath("repo_limit"));
  CronRepo repo(*store);
  auto first = repo.addWithinLimit(job("c", "@daily", 1), 2);
  auto second = repo.addWithinLimit(job("c", "@daily", 1), 2);
  auto third = repo.addWithinLimit(job("c", "@daily", 1), 2);
  REQUIRE(first.isOk());
  REQUIRE(second.isOk());
  REQUIRE(third.isOk());
  CHECK(first.value().has_value());
  CHECK(second.value().has_value());
  CHECK(!third.value().has_value());
  CHECK(repo.count().value() == 2);
}
