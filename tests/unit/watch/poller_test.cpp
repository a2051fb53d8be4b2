#include "watch/poller.h"

#include <catch2/catch.hpp>
#include <string>
#include <vector>

#include "store/watch_repo.h"
#include "watch_test_util.h"

using gantry::store::Watch;
using gantry::store::WatchRepo;
using gantry::watch::Poller;
using gantry::watch::TurnOutcome;
using namespace gantry::watch::test;

namespace {

/// The world around a poller: a feed the test edits, a settable clock, and what the poller
/// asked of the core.
struct World {
  int64_t now = kNow;
  std::string feed = R"([{"id":"a","title":"Alpha"},{"id":"b","title":"Beta"}])";
  bool feed_fails = false;
  int calls = 0;
  std::vector<std::string> turns;  ///< messages of the turns started
  std::vector<std::string> notices;
  TurnOutcome outcome = TurnOutcome::kRan;

  gantry::watch::PollerHooks hooks() {
    gantry::watch::PollerHooks h;
    h.call = [this](const Watch&, const gantry::CancelToken&) {
      ++calls;
      return feed_fails ? gantry::tools::ToolResult{false, "server feeds is down"}
                        : gantry::tools::ToolResult{true, feed};
    };
    h.run_turn = [this](const Watch&, const std::string& message) {
      turns.push_back(message);
      return outcome;
    };
    h.notify = [this](const std::string& chat, const std::string& text) {
      notices.push_back(chat + ": " + text);
    };
    return h;
  }
  std::unique_ptr<Poller> poller(gantry::store::Store& store, int min_seconds = 60) {
    return std::make_unique<Poller>(store, gantry::cron::loadCronZone("UTC").value(),
                                    gantry::watch::WatchOptions{true, 50, min_seconds}, hooks(),
                                    [this] { return now; });
  }
};

int64_t addWatch(gantry::store::Store& store, int64_t every_seconds = 60) {
  Watch w;
  w.chat_id = "chat-1";
  w.tool = "feeds__list";
  w.arguments = "{}";
  w.every_seconds = every_seconds;
  w.prompt = "Tell me what is new.";
  w.created_at = kNow;
  w.next_poll_at = kNow;
  return WatchRepo(store).addWithinLimit(w, 50).value().value();
}

}  // namespace

TEST_CASE("the first poll only records, and an hour of an unchanged feed starts no turn",
          "[watch][poller]") {
  auto store = openStore("poller_quiet");
  World world;
  const int64_t id = addWatch(*store);
  auto poller = world.poller(*store);
  for (int minute = 0; minute <= 60; ++minute) {
    world.now = kNow + minute * kMinute;
    CHECK(poller->pollDue() == 1);
  }
  CHECK(world.calls == 61);
  CHECK(world.turns.empty());
  CHECK(world.notices.empty());
  Watch w = WatchRepo(*store).get(id).value().value();
  CHECK(w.primed);
  CHECK(w.next_poll_at == std::optional<int64_t>(kNow + 61 * kMinute));
}

TEST_CASE("a new item starts exactly one turn with the prompt and only that item",
          "[watch][poller]") {
  auto store = openStore("poller_new");
  World world;
  addWatch(*store);
  auto poller = world.poller(*store);
  poller->pollDue();
  world.feed =
      R"([{"id":"c","title":"Gamma"},{"id":"a","title":"Alpha"},{"id":"b","title":"Beta"}])";
  world.now += kMinute;
  poller->pollDue();
  REQUIRE(world.turns.size() == 1);
  CHECK(world.turns[0].rfind("Tell me what is new.\n\n[new items from feeds__list: untrusted", 0) ==
        0);
  CHECK(world.turns[0].find("Gamma") != std::string::npos);
  CHECK(world.turns[0].find("Alpha") == std::string::npos);
  CHECK(world.turns[0].find("Beta") == std::string::npos);
  world.now += kMinute;
  poller->pollDue();
  CHECK(world.turns.size() == 1);  // seen now
}

TEST_CASE("a shorter interval than WATCH_MIN_SECONDS polls at the minimum", "[watch][poller]") {
  auto store = openStore("poller_min");
  World world;
  const int64_t id = addWatch(*store, 10);
  auto poller = world.poller(*store, 60);
  poller->pollDue();
  CHECK(WatchRepo(*store).get(id).value()->next_poll_at == std::optional<int64_t>(kNow + kMinute));
  world.now += 30'000;
  CHECK(poller->pollDue() == 0);
}

TEST_CASE("failing polls back off and are told to the chat once, then once recovered",
          "[watch][poller]") {
  auto store = openStore("poller_fail");
  World world;
  const int64_t id = addWatch(*store);
  auto poller = world.poller(*store);
  poller->pollDue();
  world.feed_fails = true;
  std::vector<int64_t> gaps;
  for (int i = 0; i < 5; ++i) {
    const int64_t next = WatchRepo(*store).get(id).value()->next_poll_at.value();
    gaps.push_back(next - world.now);
    world.now = next;
    CHECK(poller->pollDue() == 1);
  }
  // 1m regular, then 1m, 2m, 4m, 8m after failures 1..4.
  CHECK(gaps == std::vector<int64_t>{kMinute, kMinute, 2 * kMinute, 4 * kMinute, 8 * kMinute});
  REQUIRE(world.notices.size() == 1);
  CHECK(world.notices[0].rfind("chat-1: ⚠️ Watch 1 (feeds__list) failed 2 polls in a row: "
                               "server feeds is down",
                               0) == 0);
  Watch failing = WatchRepo(*store).get(id).value().value();
  CHECK(failing.failures == 5);
  CHECK(failing.last_error == "server feeds is down");
  world.feed_fails = false;
  world.now = failing.next_poll_at.value();
  poller->pollDue();
  REQUIRE(world.notices.size() == 2);
  CHECK(world.notices[1] == "chat-1: Watch 1 (feeds__list) works again.");
  CHECK(world.turns.empty());  // the same items as before the failures
  CHECK(WatchRepo(*store).get(id).value()->failures == 0);
}

TEST_CASE("a poll missed while down runs once at start and repeats no item", "[watch][poller]") {
  auto store = openStore("poller_restart");
  World world;
  const int64_t id = addWatch(*store);
  world.poller(*store)->pollDue();  // recorded a and b; the process then stops
  world.feed = R"([{"id":"a"},{"id":"b"},{"id":"c","title":"while down"}])";
  world.now += 3 * kHour;
  auto restarted = world.poller(*store);
  CHECK(restarted->pollDue() == 1);
  CHECK(restarted->pollDue() == 0);  // once, not once per missed poll
  REQUIRE(world.turns.size() == 1);
  CHECK(world.turns[0].find("while down") != std::string::npos);
  CHECK(WatchRepo(*store).get(id).value()->next_poll_at ==
        std::optional<int64_t>(world.now + kMinute));
}

TEST_CASE("items of a turn that never started are new again at the next poll", "[watch][poller]") {
  auto store = openStore("poller_not_started");
  World world;
  addWatch(*store);
  auto poller = world.poller(*store);
  poller->pollDue();
  world.feed = R"([{"id":"a"},{"id":"b"},{"id":"c","title":"Gamma"}])";
  world.outcome = TurnOutcome::kNotStarted;
  world.now += kMinute;
  poller->pollDue();
  world.outcome = TurnOutcome::kRan;
  world.now += kMinute;
  poller->pollDue();
  REQUIRE(world.turns.size() == 2);
  CHECK(world.turns[1].find("Gamma") != std::string::npos);
}

TEST_CASE("items of turns skipped at the daily cap all make one turn once it allows again",
          "[watch][poller]") {
  auto store = openStore("poller_skipped");
  World world;
  addWatch(*store);
  auto poller = world.poller(*store);
  poller->pollDue();
  world.outcome = TurnOutcome::kSkipped;
  world.feed = R"([{"id":"a"},{"id":"b"},{"id":"c","title":"Gamma"}])";
  world.now += kMinute;
  poller->pollDue();
  world.feed = R"([{"id":"a"},{"id":"b"},{"id":"c","title":"Gamma"},{"id":"d","title":"Delta"}])";
  world.now += kMinute;
  poller->pollDue();
  world.outcome = TurnOutcome::kRan;
  world.now += kMinute;
  poller->pollDue();
  world.now += kMinute;
  poller->pollDue();
  REQUIRE(world.turns.size() == 3);  // two skipped, then one with both posts
  CHECK(world.turns[2].find("Gamma") != std::string::npos);
  CHECK(world.turns[2].find("Delta") != std::string::npos);
}

TEST_CASE("a scheduled watch polls at its schedule's slots", "[watch][poller]") {
  auto store = openStore("poller_schedule");
  World world;
  Watch w;
  w.chat_id = "chat-1";
  w.tool = "feeds__list";
  w.arguments = "{}";
  w.schedule = "0 * * * *";
  w.prompt = "p";
  w.created_at = kNow;
  w.next_poll_at = kNow;
  const int64_t id = WatchRepo(*store).addWithinLimit(w, 50).value().value();
  auto poller = world.poller(*store);
  poller->pollDue();
  // 22:40 → the next whole hour, 23:00.
  CHECK(WatchRepo(*store).get(id).value()->next_poll_at ==
        std::optional<int64_t>(kNow + 20 * kMinute));
}
