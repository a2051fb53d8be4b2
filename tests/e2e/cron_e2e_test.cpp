// End to end: scheduled turns through the real gantry binary with CHANNEL=stdio (stdin kept
// open, so the process keeps running) and the fake OpenAI-compatible server in this process.

#include <catch2/catch.hpp>
#include <chrono>
#include <ctime>
#include <thread>

#include "e2e/support/gantry_process.h"
#include "openai/fake_openai_server.h"
#include "store/cron_repo.h"

using gantry::e2e::count;
using gantry::e2e::Env;
using gantry::e2e::GantryProcess;
using gantry::e2e::Workspace;
using gantry::testing::FakeOpenAiServer;

namespace {

constexpr int64_t kHourMs = 3600L * 1000;

Env environment(const Workspace& workspace, const FakeOpenAiServer& llm) {
  Env env = gantry::e2e::stdioEnv(workspace, llm.port());
  env["PROVIDER"] = "openai";
  env["STDIO_FORMAT"] = "text";
  env["LLM_API_KEY"] = "test-key";
  env["GANTRY_MODULE_DIR"] = std::string(GANTRY_BUILD_DIR) + "/modules";
  env["CRON_TZ"] = "UTC";
  env["CRON_TICK_SECONDS"] = "1";
  env["COALESCE_SETTLE_MS"] = "0";
  return env;
}

std::string database(const Workspace& workspace) { return workspace.data() + "/gantry.db"; }

void say(GantryProcess& gantry, const std::string& line) { gantry.write(line + "\n"); }

/// Fails the test, showing stdout and the log, unless stdout comes to hold needle (waiting
/// generously, only to avoid a hang).
void requireOutput(GantryProcess& gantry, const std::string& needle) {
  if (!gantry.waitForOutput(needle, std::chrono::seconds(180)))
    FAIL("no \"" << needle << "\" on stdout:\n" << gantry.out() << "\nlog:\n" << gantry.err());
}

/// Closes stdin (end of input) and waits for the exit code.
int finish(GantryProcess& gantry) {
  gantry.closeInput();
  return gantry.wait();
}

/// Runs `gantry cron <args>` and returns its stdout; the exit code goes to *code.
std::string cronCli(const Workspace& workspace, const FakeOpenAiServer& llm,
                    const std::vector<std::string>& args, int* code) {
  std::vector<std::string> all = {"cron"};
  all.insert(all.end(), args.begin(), args.end());
  auto result = gantry::e2e::runGantry(environment(workspace, llm), "", all);
  *code = result.code;
  return result.out;
}

std::string cronAddCall(const std::string& schedule, const std::string& prompt) {
  return R"({"tool_calls":[{"id":"call_1","name":"cron_add","arguments":"{\"schedule\":\")" +
         schedule + R"(\",\"prompt\":\")" + prompt + R"(\"}"}]})";
}

// The next whole UTC minute at least 5 seconds away, as a one-shot schedule.
std::string soonOneShot() {
  auto now = std::chrono::system_clock::now();
  auto minute = std::chrono::floor<std::chrono::minutes>(now) + std::chrono::minutes(1);
  if (minute - now < std::chrono::seconds(5)) minute += std::chrono::minutes(1);
  std::time_t t = std::chrono::system_clock::to_time_t(minute);
  std::tm tm{};
  gmtime_r(&t, &tm);
  char text[32];
  std::strftime(text, sizeof text, "%Y-%m-%dT%H:%M", &tm);
  return text;
}

}  // namespace

TEST_CASE("a job added by a tool call fires and its reply appears on stdout", "[e2e][cron]") {
  Workspace workspace("cron");
  FakeOpenAiServer llm;
  llm.addReply(cronAddCall(soonOneShot(), "cron says hello"));
  llm.addReply(R"({"content":"scheduled it"})");
  GantryProcess gantry(environment(workspace, llm));
  say(gantry, "remind me in a minute");
  requireOutput(gantry, "scheduled it");
  // The scheduled turn's reply is the fake's echo of the turn's message (the job's prompt).
  requireOutput(gantry, "cron says hello");
  CHECK(finish(gantry) == 0);
  CHECK(count(gantry.out(), "cron says hello") == 1);
  int code = -1;
  CHECK(cronCli(workspace, llm, {"list"}, &code).empty());  // one-shot removed after running
  CHECK(code == 0);
}

TEST_CASE("a job survives a restart and a run missed while down fires once", "[e2e][cron]") {
  Workspace workspace("cron");
  FakeOpenAiServer llm;
  llm.addReply(cronAddCall("@hourly", "hourly check"));
  llm.addReply(R"({"content":"scheduled hourly"})");
  {
    GantryProcess gantry(environment(workspace, llm));
    say(gantry, "check every hour");
    requireOutput(gantry, "scheduled hourly");
    CHECK(finish(gantry) == 0);
  }
  int code = -1;
  CHECK(cronCli(workspace, llm, {"list"}, &code).rfind("1\t@hourly\t", 0) == 0);
  CHECK(code == 0);
  {
    // Down for three hours: three slots were missed.
    auto store = gantry::store::Store::open(database(workspace));
    REQUIRE(store.isOk());
    gantry::store::CronRepo repo(*store.value());
    REQUIRE(repo.setNextRun(1, gantry::store::nowMs() - 3 * kHourMs).isOk());
  }
  GantryProcess restarted(environment(workspace, llm));
  requireOutput(restarted, "hourly check");
  // Let several ticks pass: a missed slot must not run again.
  std::this_thread::sleep_for(std::chrono::seconds(3));
  CHECK(finish(restarted) == 0);
  CHECK(count(restarted.out(), "hourly check") == 1);

  auto store = gantry::store::Store::open(database(workspace));
  REQUIRE(store.isOk());
  gantry::store::CronRepo repo(*store.value());
  auto runs = repo.runs(1);
  REQUIRE(runs.isOk());
  REQUIRE(runs->size() == 1);
  CHECK(runs->at(0).outcome == "ok");
  auto job = repo.get(1).value();
  REQUIRE(job.has_value());
  CHECK(job->next_run_at.value_or(0) > gantry::store::nowMs());
}
