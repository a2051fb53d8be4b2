// The fault matrix, chat channel: the Bot API misbehaving, through the real binary against
// the fake Bot API. (A 429 storm on sendMessage and a 401 at boot are in
// tests/e2e/telegram_e2e_test.cpp.) Also the half-dead watchdog of `gantry status`: one
// direction of the channel failing or hanging while the other works.
#include <catch2/catch.hpp>
#include <thread>

#include "openai/fake_openai_server.h"
#include "reliability/fault_support.h"
#include "telegram/fake_telegram.h"

using gantry::e2e::count;
using gantry::e2e::Env;
using gantry::e2e::GantryProcess;
using gantry::e2e::Workspace;
using gantry::fakes::FakeTelegram;
using gantry::fakes::Fault;
using gantry::testing::FakeOpenAiServer;
using namespace std::chrono_literals;

namespace {

constexpr std::int64_t kOwner = 111;

struct Fixture {
  explicit Fixture(const std::string& name) : workspace(name) { telegram.start(); }

  Env env(const Env& extra = {}) const {
    Env env = gantry::e2e::telegramEnv(workspace, llm.port(), telegram.token(), telegram.apiBase(),
                                       kOwner);
    env["MEMORY_ENABLED"] = "false";
    env["TELEGRAM_BACKOFF_MS"] = "50";
    env["HEARTBEAT_SECONDS"] = "1";
    for (const auto& [key, value] : extra) env[key] = value;
    return env;
  }

  /// Waits until exactly one sendMessage carries needle and stays one for a moment.
  bool repliedOnce(const std::string& needle) const {
    for (int i = 0; i < 400; ++i) {
      if (sentWith(needle) > 0) break;
      std::this_thread::sleep_for(50ms);
    }
    std::this_thread::sleep_for(300ms);
    return sentWith(needle) == 1;
  }

  std::size_t sentWith(const std::string& needle) const {
    std::size_t n = 0;
    for (const auto& record : telegram.sent("sendMessage")) {
      n += record.text.find(needle) != std::string::npos;
    }
    return n;
  }

  void requireSound() const {
    std::string why;
    const bool sound = gantry::faults::recordSound(workspace, &why);
    INFO(why);
    CHECK(sound);
  }

  /// Polls `gantry status` until the instance's heartbeat is read and the exit code is want
  /// (1: a side of the channel is failing); false after timeout.
  bool statusBecomes(int want, std::string* out, std::chrono::seconds timeout = 20s) const {
    auto until = std::chrono::steady_clock::now() + timeout;
    const std::string needle = want == 0 ? "heartbeat:" : "— failing";
    while (std::chrono::steady_clock::now() < until) {
      int code = gantry::faults::status(env(), out);
      if (code == want && out->find(needle) != std::string::npos) return true;
      std::this_thread::sleep_for(250ms);
    }
    return false;
  }

  FakeTelegram telegram;
  FakeOpenAiServer llm;
  Workspace workspace;
};

Fault fault(const std::string& method, int status, int count, bool drop = false, int hang_ms = 0) {
  Fault f;
  f.method = method;
  f.status = status;
  f.count = count;
  f.drop = drop;
  f.hang_ms = hang_ms;
  return f;
}

}  // namespace

TEST_CASE("5xx from the Bot API on polls and sends delay the reply but lose nothing",
          "[faults][channel]") {
  Fixture f("fault-tg-5xx");
  f.telegram.addFault(fault("getUpdates", 502, 2));
  f.telegram.addFault(fault("sendMessage", 500, 2));
  GantryProcess g(f.env());
  f.telegram.enqueueText(kOwner, "through the errors");
  INFO(g.err());
  CHECK(f.repliedOnce("echo: through the errors"));
  CHECK(g.err().find("HTTP 502") != std::string::npos);
  g.stop();
  f.requireSound();
}

TEST_CASE("a 429 storm on polls waits retry_after each time and loses nothing",
          "[faults][channel]") {
  Fixture f("fault-tg-poll-429");
  Fault storm = fault("getUpdates", 429, 3);
  storm.retry_after = 1;
  f.telegram.addFault(storm);
  f.telegram.enqueueText(kOwner, "behind the storm");
  const auto start = std::chrono::steady_clock::now();
  GantryProcess g(f.env());
  INFO(g.err());
  CHECK(f.repliedOnce("echo: behind the storm"));
  // Three refused polls, each followed by the wait the Bot API asked for (a lower bound, so a
  // slow machine cannot fail it): the storm was waited out, not hammered.
  CHECK(std::chrono::steady_clock::now() - start >= 3s);
  CHECK(count(g.err(), "HTTP 429") == 3);
  CHECK(count(g.err(), R"("retry_after":"1")") == 3);
  CHECK(f.telegram.calls("getUpdates") >= 4);
  CHECK(g.stop() == 0);
  f.requireSound();
}

TEST_CASE("a connection dropped in the middle of a long poll is reconnected, nothing lost",
          "[faults][channel]") {
  Fixture f("fault-tg-drop");
  f.telegram.addFault(fault("getUpdates", 0, 2, true, 300));
  GantryProcess g(f.env());
  REQUIRE(f.telegram.waitCalls("getUpdates", 3));
  f.telegram.enqueueText(kOwner, "after the drop");
  INFO(g.err());
  CHECK(f.repliedOnce("echo: after the drop"));
  CHECK(g.err().find("network error") != std::string::npos);
  g.stop();
  f.requireSound();
}

TEST_CASE("409 Conflict from another poller is logged and retried with backoff, not fatal",
          "[faults][channel]") {
  Fixture f("fault-tg-409");
  f.telegram.addFault(fault("getUpdates", 409, 3));
  GantryProcess g(f.env());
  REQUIRE(g.waitForLog("another process is polling this bot", 20s));
  f.telegram.enqueueText(kOwner, "once the other instance is gone");
  INFO(g.err());
  CHECK(f.repliedOnce("echo: once the other instance is gone"));
  CHECK(count(g.err(), "HTTP 409 Conflict") == 3);
  CHECK(g.stop() == 0);
  f.requireSound();
}

TEST_CASE("an idle instance is healthy though its long poll outlasts three heartbeats",
          "[faults][channel][watchdog]") {
  Fixture f("fault-tg-idle");
  GantryProcess g(f.env());
  REQUIRE(g.waitForLog("\"ready\"", 20s));
  std::this_thread::sleep_for(4500ms);
  std::string out;
  CHECK(gantry::faults::status(f.env(), &out) == 0);
  INFO(out << g.err());
  CHECK(out.find("failing") == std::string::npos);
}

TEST_CASE("polls failing while sends work fail gantry status and the log says why",
          "[faults][channel][watchdog]") {
  Fixture f("fault-tg-poll-failing");
  // 50 ms doubling: 7 failures keep the receive side failing for over 6 s.
  f.telegram.addFault(fault("getUpdates", 502, 7));
  GantryProcess g(f.env());
  std::string out;
  REQUIRE(f.statusBecomes(1, &out));
  INFO(out << g.err());
  CHECK(out.find("last good receive") != std::string::npos);
  CHECK(out.find("— failing") != std::string::npos);
  REQUIRE(g.waitForLog("channel_receive_failing", 10s));
  CHECK(g.err().find("polls fail or hang") != std::string::npos);
  REQUIRE(f.statusBecomes(0, &out));
  CHECK(g.waitForLog("channel_receive_recovered", 10s));
  f.telegram.enqueueText(kOwner, "heard again");
  CHECK(f.repliedOnce("echo: heard again"));
}

TEST_CASE("a poll that hangs fails gantry status until it answers", "[faults][channel][watchdog]") {
  Fixture f("fault-tg-poll-hang");
  f.telegram.addFault(fault("getUpdates", 200, 1, false, 6000));
  GantryProcess g(f.env());
  std::string out;
  REQUIRE(f.statusBecomes(1, &out));
  INFO(out << g.err());
  CHECK(out.find("— failing") != std::string::npos);
  REQUIRE(g.waitForLog("channel_receive_failing", 10s));
  REQUIRE(f.statusBecomes(0, &out));
  f.telegram.enqueueText(kOwner, "after the hang");
  CHECK(f.repliedOnce("echo: after the hang"));
}

TEST_CASE("sends failing while polls work fail gantry status, and the reply still arrives",
          "[faults][channel][watchdog]") {
  Fixture f("fault-tg-send-failing");
  // The channel tries each send 5 times: the reply and its next four sends (one per
  // heartbeat) fail, then sends work again.
  f.telegram.addFault(fault("sendMessage", 502, 25));
  GantryProcess g(f.env());
  f.telegram.enqueueText(kOwner, "reply into the void");
  std::string out;
  REQUIRE(f.statusBecomes(1, &out));
  INFO(out << g.err());
  CHECK(out.find("sends failing since") != std::string::npos);
  CHECK(out.find("HTTP 502") != std::string::npos);
  REQUIRE(g.waitForLog("channel_send_failing", 10s));
  // Sends work again: the reply that could not go out is delivered, once, without a restart.
  CHECK(f.repliedOnce("echo: reply into the void"));
  REQUIRE(f.statusBecomes(0, &out));
  CHECK(g.waitForLog("channel_send_recovered", 10s));
  g.stop();
  f.requireSound();
}
