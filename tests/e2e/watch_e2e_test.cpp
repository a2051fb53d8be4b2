// End to end: watches through the real gantry binary with CHANNEL=stdio, the fake model in
// this process and the fake MCP server's feed tool, whose items the test changes by
// rewriting a file. WATCH_MIN_SECONDS=1 lets a watch poll every second.

#include <sqlite3.h>

#include <catch2/catch.hpp>
#include <chrono>
#include <filesystem>
#include <thread>

#include "e2e/support/feed.h"
#include "e2e/support/gantry_process.h"
#include "openai/fake_openai_server.h"

using gantry::e2e::count;
using gantry::e2e::Env;
using gantry::e2e::GantryProcess;
using gantry::e2e::Workspace;
using gantry::testing::FakeOpenAiServer;

namespace {

constexpr const char* kOldItems =
    R"([{"id":"a","title":"Alpha post"},{"id":"b","title":"Beta post"}])";

/// A stdio instance whose manifest has the server "feeds" reading the workspace's feed file.
Env environment(const Workspace& ws, const FakeOpenAiServer& llm) {
  return gantry::e2e::feedEnv(ws, llm.port(), kOldItems);
}

using gantry::e2e::setFeed;

void say(GantryProcess& gantry, const std::string& line) { gantry.write(line + "\n"); }

void requireOutput(GantryProcess& gantry, const std::string& needle, int times = 1) {
  if (!gantry.waitForOutput(needle, std::chrono::seconds(120), times))
    FAIL("no \"" << needle << "\" on stdout:\n" << gantry.out() << "\nlog:\n" << gantry.err());
}

/// Waits until the log holds `polls` more successful polls than `from` did.
void requirePolls(GantryProcess& gantry, int polls) {
  const int from = count(gantry.err(), "\"msg\":\"watch_polled\"");
  auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(120);
  while (count(gantry.err(), "\"msg\":\"watch_polled\"") < from + polls) {
    if (std::chrono::steady_clock::now() > deadline) FAIL("too few polls:\n" << gantry.err());
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
  }
}

void addWatch(FakeOpenAiServer& llm, GantryProcess& gantry) {
  llm.addReply(
      R"({"tool_calls":[{"id":"w1","name":"watch_add","arguments":"{\"tool\":\"feeds__feed\",)"
      R"(\"every\":\"1s\",\"prompt\":\"Report new posts.\"}"}]})");
  llm.addReply(R"({"content":"watching the feed"})");
  say(gantry, "watch my feed");
  requireOutput(gantry, "watching the feed");
  if (!gantry.waitForLog("\"msg\":\"watch_primed\"", std::chrono::seconds(60)))
    FAIL("never primed:\n" << gantry.err());
}

int finish(GantryProcess& gantry) {
  gantry.closeInput();
  return gantry.wait();
}

int64_t silentRepliesRecorded(const Workspace& ws) {
  sqlite3* db = nullptr;
  REQUIRE(sqlite3_open_v2((ws.data() + "/gantry.db").c_str(), &db, SQLITE_OPEN_READONLY, nullptr) ==
          SQLITE_OK);
  sqlite3_stmt* stmt = nullptr;
  sqlite3_prepare_v2(db,
                     "SELECT count(*) FROM messages WHERE role = 'assistant' AND content = "
                     "'[silent]'",
                     -1, &stmt, nullptr);
  int64_t n = sqlite3_step(stmt) == SQLITE_ROW ? sqlite3_column_int64(stmt, 0) : -1;
  sqlite3_finalize(stmt);
  sqlite3_close(db);
  return n;
}

}  // namespace

TEST_CASE(
    "an unchanged feed costs no model call, one new item makes one turn naming only it, and a "
    "restart neither repeats nor loses an item",
    "[e2e][watch]") {
  Workspace ws("watch");
  FakeOpenAiServer llm;
  Env env = environment(ws, llm);
  {
    GantryProcess gantry(env);
    addWatch(llm, gantry);
    requirePolls(gantry, 5);
    CHECK(llm.requestCount() == 2);  // the turn that added the watch, nothing since
    setFeed(ws, R"([{"id":"c","title":"Gamma post"},{"id":"a","title":"Alpha post"},)"
                R"({"id":"b","title":"Beta post"}])");
    requireOutput(gantry, "Gamma post");
    requirePolls(gantry, 3);
    CHECK(llm.requestCount() == 3);
    const auto turn = llm.requests(2).at(0);
    CHECK(turn.find("Report new posts.") != std::string::npos);
    CHECK(turn.find("Gamma post") != std::string::npos);
    CHECK(turn.find("untrusted data") != std::string::npos);
    CHECK(gantry.out().find("Alpha post") == std::string::npos);
    CHECK(gantry.out().find("Beta post") == std::string::npos);
    CHECK(finish(gantry) == 0);
    CHECK(count(gantry.out(), "Gamma post") == 1);
  }
  // Down while a post arrives.
  setFeed(ws, R"([{"id":"d","title":"Delta post"},{"id":"c","title":"Gamma post"},)"
              R"({"id":"a","title":"Alpha post"},{"id":"b","title":"Beta post"}])");
  auto listed = gantry::e2e::runGantry(env, "", {"watch", "list"});
  CHECK(listed.code == 0);
  CHECK(listed.out.rfind("1\tfeeds__feed\tevery 1s\t", 0) == 0);
  CHECK(listed.out.find("\tok\tReport new posts.\n") != std::string::npos);
  GantryProcess restarted(env);
  requireOutput(restarted, "Delta post");
  requirePolls(restarted, 3);
  CHECK(llm.requestCount() == 4);
  CHECK(count(restarted.out(), "Delta post") == 1);
  CHECK(restarted.out().find("Gamma post") == std::string::npos);
  CHECK(finish(restarted) == 0);
  auto removed = gantry::e2e::runGantry(env, "", {"watch", "rm", "1"});
  CHECK(removed.code == 0);
  CHECK(removed.out == "removed watch 1\n");
}

TEST_CASE("a watch turn whose reply is [silent] posts nothing and is recorded", "[e2e][watch]") {
  Workspace ws("watch-silent");
  FakeOpenAiServer llm;
  GantryProcess gantry(environment(ws, llm));
  addWatch(llm, gantry);
  llm.addReply(R"({"content":"[silent]"})");
  setFeed(ws, R"([{"id":"c","title":"Gamma post"}])");
  if (!gantry.waitForLog("\"msg\":\"scheduled_reply_silent\"", std::chrono::seconds(60)))
    FAIL("no silent reply:\n" << gantry.out() << "\nlog:\n" << gantry.err());
  CHECK(llm.requestCount() == 3);
  // The scheduled turn was told what [silent] does.
  CHECK(llm.requests(2).at(0).find("reply with exactly [silent]") != std::string::npos);
  CHECK(llm.requests(0).at(0).find("reply with exactly [silent]") == std::string::npos);
  CHECK(finish(gantry) == 0);
  CHECK(gantry.out().find("[silent]") == std::string::npos);
  CHECK(gantry.out().find("Gamma") == std::string::npos);
  CHECK(silentRepliesRecorded(ws) == 1);
}

TEST_CASE("a failing feed is told to the chat once, and once more when it works again",
          "[e2e][watch]") {
  Workspace ws("watch-failing");
  FakeOpenAiServer llm;
  GantryProcess gantry(environment(ws, llm));
  addWatch(llm, gantry);
  std::filesystem::remove(ws.path() + "/" + gantry::e2e::kFeedFile);
  requireOutput(gantry, "failed 2 polls in a row: feed: cannot read");
  std::this_thread::sleep_for(std::chrono::seconds(4));  // more failures, backing off
  setFeed(ws, kOldItems);
  requireOutput(gantry, "Watch 1 (feeds__feed) works again.");
  CHECK(finish(gantry) == 0);
  CHECK(count(gantry.out(), "polls in a row") == 1);
  CHECK(llm.requestCount() == 2);  // no model call for any of it
}
