// End to end: the daily token cap (BUDGET_DAILY_TOKENS) through the real gantry binary with
// CHANNEL=stdio, the fake model in this process reporting usage, and a watch on the fake MCP
// server's feed, which a thread of the test grows on every poll.

#include <atomic>
#include <catch2/catch.hpp>
#include <chrono>
#include <thread>

#include "e2e/support/feed.h"
#include "e2e/support/gantry_process.h"
#include "openai/fake_openai_server.h"

using gantry::e2e::count;
using gantry::e2e::Env;
using gantry::e2e::GantryProcess;
using gantry::e2e::Workspace;
using gantry::testing::FakeOpenAiServer;
using gantry::testing::ScriptedReply;

namespace {

constexpr const char* kNotice = "Cron jobs, watches and memory consolidation are skipped.";

/// A feed of posts p1..pN, newest first.
std::string posts(int items) {
  std::string json = "[";
  for (int i = items; i > 0; --i) {
    json += R"({"id":"p)" + std::to_string(i) + R"(","title":"Post )" + std::to_string(i) + "\"}";
    json += i > 1 ? "," : "";
  }
  return json + "]";
}

void setFeed(const Workspace& ws, int items) { gantry::e2e::setFeed(ws, posts(items)); }

Env environment(const Workspace& ws, const FakeOpenAiServer& llm) {
  Env env = gantry::e2e::feedEnv(ws, llm.port(), posts(1));
  env["CRON_TZ"] = "Europe/Berlin";
  env["BUDGET_DAILY_TOKENS"] = "1000";
  return env;
}

void requireOutput(GantryProcess& gantry, const std::string& needle, int times = 1) {
  if (!gantry.waitForOutput(needle, std::chrono::seconds(120), times))
    FAIL("no \"" << needle << "\" on stdout:\n" << gantry.out() << "\nlog:\n" << gantry.err());
}

void requireLog(GantryProcess& gantry, const std::string& needle, int times) {
  auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(120);
  while (count(gantry.err(), needle) < times) {
    if (std::chrono::steady_clock::now() > deadline)
      FAIL("too few " << needle << ":\n" << gantry.err());
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
  }
}

/// Grows the feed by one post every 300 ms while it lives: every poll finds a new one.
class GrowingFeed {
 public:
  explicit GrowingFeed(const Workspace& ws)
      : thread_([this, &ws] {
          for (int n = 2; !stop_; ++n) {
            setFeed(ws, n);
            std::this_thread::sleep_for(std::chrono::milliseconds(300));
          }
        }) {}
  ~GrowingFeed() {
    stop_ = true;
    thread_.join();
  }

 private:
  std::atomic<bool> stop_{false};
  std::thread thread_;
};

}  // namespace

TEST_CASE(
    "the daily cap stops a watch whose feed grows on every poll within one turn, tells the "
    "owner once, and answers the owner's message with one line and no model call",
    "[e2e][budget]") {
  Workspace ws("budget");
  FakeOpenAiServer llm;
  // The turn that adds the watch: 2 calls of 110 tokens each.
  llm.addReply(
      R"({"tool_calls":[{"id":"w1","name":"watch_add","arguments":"{\"tool\":\"feeds__feed\",)"
      R"(\"every\":\"1s\",\"prompt\":\"Report new posts.\"}"}],)"
      R"("usage":{"prompt_tokens":100,"completion_tokens":10}})");
  llm.addReply(
      R"({"content":"watching the feed","usage":{"prompt_tokens":100,"completion_tokens":10}})");
  // Each watch turn: 300 tokens. 220 + 3 * 300 reaches 1000 on the third.
  llm.setResponder([](const std::string&) {
    ScriptedReply reply;
    reply.content = "noted a post";
    reply.prompt_tokens = 290;
    reply.completion_tokens = 10;
    return reply;
  });
  GantryProcess gantry(environment(ws, llm));
  gantry.write("watch my feed\n");
  requireOutput(gantry, "watching the feed");
  if (!gantry.waitForLog("\"msg\":\"watch_primed\"", std::chrono::seconds(60)))
    FAIL("never primed:\n" << gantry.err());
  {
    GrowingFeed feed(ws);
    requireOutput(gantry, kNotice);
    requireLog(gantry, "\"msg\":\"watch_turn_skipped\"", 4);  // more polls, each skipped
  }
  CHECK(llm.requestCount() == 5);  // 2 + the 3 turns that reached the cap
  CHECK(count(gantry.out(), "noted a post") == 3);
  CHECK(count(gantry.out(), kNotice) == 1);
  CHECK(gantry.out().find("Daily token cap reached: 1120 of 1000 tokens spent today; resets at "
                          "midnight Europe/Berlin") != std::string::npos);

  gantry.write("are you there?\n");
  requireOutput(gantry, "Daily token cap reached: 1120 of 1000", 2);
  gantry.write("/budget\n");
  requireOutput(gantry, "Today: 1120 of 1000 tokens spent; the cap is reached");
  requireOutput(gantry, "Skipped today: watch");
  CHECK(llm.requestCount() == 5);  // the owner's message reached no model

  // Raised, the watch's unshown posts make one turn again.
  gantry.write("/budget +1000\n");
  requireOutput(gantry, "Raised today's cap by 1000. Today: 1120 of 2000 tokens spent");
  requireOutput(gantry, "noted a post", 4);
  CHECK(llm.requests(5).at(0).find("Post ") != std::string::npos);
  gantry.closeInput();
  CHECK(gantry.wait() == 0);

  auto usage = gantry::e2e::runGantry(environment(ws, llm), "", {"usage", "--days", "1"});
  CHECK(usage.code == 0);
  CHECK(usage.out.find("\t1420\t2000\tEurope/Berlin\n") != std::string::npos);
}
