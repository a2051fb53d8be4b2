#include "cron/cron_command.h"

#include <catch2/catch.hpp>
#include <sstream>

#include "cron_test_util.h"
#include "store/cron_repo.h"

using gantry::cron::cronCommand;
using gantry::cron::cronStatusLine;

namespace {

// 2026-12-01T06:30:00Z = 07:30 in Berlin.
constexpr int64_t kSlot = 1796106600000;

gantry::cron::Zone berlin() { return gantry::cron::loadCronZone("Europe/Berlin").value(); }

struct Run {
  int code;
  std::string out;
  std::string err;
};

Run run(gantry::store::Store& store, const std::vector<std::string>& args) {
  std::ostringstream out, err;
  int code = cronCommand(store, args, berlin(), out, err);
  return {code, out.str(), err.str()};
}

void addJobs(gantry::store::Store& store) {
  gantry::store::CronRepo repo(store);
  gantry::store::CronJob job;
  job.chat_id = "12345";
  job.schedule = "30 7 * * 1-5";
  job.prompt = "summarise\tmy calendar";
  job.next_run_at = kSlot;
  REQUIRE(repo.add(job).isOk());
  job.chat_id = "67890";
  job.schedule = "2026-12-24T18:00";
  job.prompt = "call mom";
  job.next_run_at = kSlot + 3600000;
  REQUIRE(repo.add(job).isOk());
}

}  // namespace

TEST_CASE("gantry cron list prints one tab-separated row per job, id first", "[cron][command]") {
  auto store = gantry::cron::test::openStore(gantry::cron::test::tempDbPath("cmd_list"));
  addJobs(*store);
  Run r = run(*store, {"list"});
  CHECK(r.code == 0);
  CHECK(r.err.empty());
  CHECK(r.out ==
        "1\t30 7 * * 1-5\t2026-12-01T07:30\t12345\tsummarise my calendar\n"
        "2\t2026-12-24T18:00\t2026-12-01T08:30\t67890\tcall mom\n");
}

TEST_CASE("gantry cron rm removes a job, and an unknown id exits 1", "[cron][command]") {
  auto store = gantry::cron::test::openStore(gantry::cron::test::tempDbPath("cmd_rm"));
  addJobs(*store);
  Run removed = run(*store, {"rm", "1"});
  CHECK(removed.code == 0);
  CHECK(removed.out == "removed cron job 1\n");
  Run again = run(*store, {"rm", "1"});
  CHECK(again.code == 1);
  CHECK(again.err == "gantry cron rm: no job 1 (see gantry cron list)\n");
  CHECK(run(*store, {"list"}).out.rfind("2\t", 0) == 0);
}

TEST_CASE("gantry cron usage errors exit 2", "[cron][command]") {
  auto store = gantry::cron::test::openStore(gantry::cron::test::tempDbPath("cmd_usage"));
  for (const auto& args :
       std::vector<std::vector<std::string>>{{}, {"rm"}, {"list", "extra"}, {"frobnicate"}}) {
    Run r = run(*store, args);
    CHECK(r.code == 2);
    CHECK(r.err == "usage: gantry cron list | gantry cron rm ID\n");
  }
  Run bad_id = run(*store, {"rm", "x1"});
  CHECK(bad_id.code == 2);
  CHECK(bad_id.err == "gantry cron rm: \"x1\" is not a job id (see gantry cron list)\n");
}

TEST_CASE("the status line shows the job count and the next run", "[cron][command]") {
  auto store = gantry::cron::test::openStore(gantry::cron::test::tempDbPath("cmd_status"));
  CHECK(cronStatusLine(*store, berlin()) == "cron: 0 jobs");
  addJobs(*store);
  CHECK(cronStatusLine(*store, berlin()) == "cron: 2 jobs, next 2026-12-01 07:30 Europe/Berlin");
  CHECK(cronStatusLine(*store, berlin(), false) == "cron: off");
}
