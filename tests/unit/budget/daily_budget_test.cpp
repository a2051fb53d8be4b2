#include "budget/daily_budget.h"

#include <unistd.h>

#include <catch2/catch.hpp>
#include <filesystem>
#include <memory>
#include <string>
#include <vector>

#include "budget/budget_gate.h"
#include "budget/capped_provider.h"
#include "store/usage_repo.h"

using gantry::budget::BudgetGate;
using gantry::budget::DailyBudget;

namespace {

constexpr int64_t kMinute = 60'000;
constexpr int64_t kHour = 60 * kMinute;
// 2026-11-30T22:40:00Z: 23:40 in Europe/Berlin, 20 minutes before its midnight.
constexpr int64_t kNow = 1796078400000;

std::string tempDbPath(const std::string& name) {
  namespace fs = std::filesystem;
  fs::path dir = fs::temp_directory_path() / ("gantry_budget_test_" + std::to_string(::getpid()));
  fs::create_directories(dir);
  fs::path p = dir / (name + ".db");
  for (const char* suffix : {"", "-wal", "-shm"}) fs::remove(p.string() + suffix);
  return p.string();
}

std::unique_ptr<gantry::store::Store> openStore(const std::string& path,
                                                gantry::store::Access access) {
  auto store = gantry::store::Store::open(path, access);
  INFO(store.status().message());
  REQUIRE(store.isOk());
  return std::move(store.value());
}

gantry::cron::Zone berlin() {
  auto zone = gantry::cron::loadCronZone("Europe/Berlin");
  REQUIRE(zone.isOk());
  return zone.value();
}

/// A budget over a fresh store with a clock the test sets.
struct World {
  explicit World(const std::string& name, int64_t cap) : path(tempDbPath(name)) {
    store = openStore(path, gantry::store::Access::kOwner);
    budget = std::make_unique<DailyBudget>(*store, cap, berlin(), [this] { return now; });
  }
  int64_t now = kNow;
  std::string path;
  std::unique_ptr<gantry::store::Store> store;
  std::unique_ptr<DailyBudget> budget;
};

/// A model that answers every call, counting them.
class CountingProvider final : public gantry::Provider {
 public:
  gantry::Result<gantry::ChatResponse> chat(const gantry::ChatRequest&,
                                            const gantry::StreamCallbacks*,
                                            const gantry::CancelToken&) noexcept override {
    ++calls;
    return gantry::ChatResponse{};
  }
  std::string model() const noexcept override { return "counting"; }
  int calls = 0;
};

}  // namespace

TEST_CASE("with no cap nothing is ever reached and /budget says there is none", "[budget]") {
  World w("nocap", 0);
  w.budget->charge(1'000'000);
  CHECK_FALSE(w.budget->reached());
  CHECK(gantry::budget::budgetCommand(*w.budget, "/budget", w.now) ==
        "Today: 1000000 tokens spent; no daily cap (BUDGET_DAILY_TOKENS=0).");
  CHECK(gantry::budget::budgetCommand(*w.budget, "/budget +5", w.now).find("no daily cap") !=
        std::string::npos);
}

TEST_CASE("the cap is reached mid-day and the day resets at midnight in CRON_TZ", "[budget]") {
  World w("midday", 1000);
  w.now = kNow - 10 * kHour;  // 13:40 Berlin
  REQUIRE(w.budget->load().isOk());
  w.budget->charge(600);
  CHECK_FALSE(w.budget->reached());
  w.budget->charge(400);
  CHECK(w.budget->reached());
  auto day = w.budget->today();
  CHECK(day.spent == 1000);
  CHECK(day.resets_at == kNow + 20 * kMinute);
  CHECK(gantry::budget::capReachedLine(day, berlin(), w.now) ==
        "Daily token cap reached: 1000 of 1000 tokens spent today; resets at midnight "
        "Europe/Berlin, in 10h 20m. Nothing more runs until then; /budget +N raises today's cap.");
  w.now = kNow + 19 * kMinute;  // 23:59 Berlin, 22:59 UTC: still the same day
  CHECK(w.budget->reached());
  w.now = kNow + 21 * kMinute;  // 00:01 Berlin, though still 30 November in UTC
  CHECK_FALSE(w.budget->reached());
  CHECK(w.budget->today().spent == 0);
}

TEST_CASE("/budget +N raises today's cap for today only, and survives a restart", "[budget]") {
  World w("raise", 1000);
  w.budget->charge(1200);
  CHECK(w.budget->reached());
  CHECK(gantry::budget::budgetCommand(*w.budget, "/budget +x", w.now).rfind("Usage:", 0) == 0);
  CHECK(gantry::budget::budgetCommand(*w.budget, "/budget +0", w.now).rfind("Usage:", 0) == 0);
  const std::string raised = gantry::budget::budgetCommand(*w.budget, "/budget +500", w.now);
  CHECK(raised ==
        "Raised today's cap by 500. Today: 1200 of 1500 tokens spent (cap raised by 500 today); "
        "resets at midnight Europe/Berlin, in 20m.");
  CHECK_FALSE(w.budget->reached());
  // A restart keeps the raise (the spend comes back from the usage record).
  DailyBudget again(*w.store, 1000, berlin(), [&w] { return w.now; });
  REQUIRE(again.load().isOk());
  CHECK(again.today().cap == 1500);
  w.now = kNow + 30 * kMinute;  // the next day in Berlin
  CHECK(again.today().cap == 1000);
  CHECK(w.budget->today().raised == 0);
}

TEST_CASE("today's spend at boot is read from the usage record in the zone's day", "[budget]") {
  World w("boot", 1000);
  {
    auto writer = openStore(w.path, gantry::store::Access::kNoSchema);
    gantry::store::UsageRepo usage(*writer);
    gantry::store::UsageRow yesterday;  // 23:30 Berlin the day before
    yesterday.at = kNow - 24 * kHour - 10 * kMinute;
    yesterday.prompt_tokens = 5000;
    gantry::store::UsageRow today;  // 00:30 Berlin (23:30 UTC the day before)
    today.at = kNow - 23 * kHour - 10 * kMinute;
    today.prompt_tokens = 700;
    today.completion_tokens = 300;
    REQUIRE(usage.record(yesterday).isOk());
    REQUIRE(usage.record(today).isOk());
  }
  REQUIRE(w.budget->load().isOk());
  CHECK(w.budget->today().spent == 1000);
  CHECK(w.budget->reached());
}

TEST_CASE("past the cap unattended work is skipped and the owner is told once a day", "[budget]") {
  World w("gate", 100);
  std::vector<std::pair<std::string, std::string>> told;
  BudgetGate gate(
      *w.budget, [&](const std::string& c, const std::string& t) { told.emplace_back(c, t); },
      "owner");
  CHECK_FALSE(gate.unattended("cron", "job 1", "chat-1"));
  CHECK(gate.ownerTurn().empty());
  w.budget->charge(100);
  CHECK(gate.unattended("cron", "job 1", "chat-1"));
  CHECK(gate.unattended("watch", "watch 2", "chat-1"));
  CHECK(gate.unattended("consolidation", "", ""));
  REQUIRE(told.size() == 1);
  CHECK(told[0].first == "chat-1");
  CHECK(told[0].second.find("100 of 100 tokens spent today; resets at midnight Europe/Berlin") !=
        std::string::npos);
  CHECK(gate.ownerTurn().rfind("Daily token cap reached: 100 of 100", 0) == 0);
  auto day = w.budget->today();
  CHECK(day.skipped ==
        std::map<std::string, int64_t>{{"consolidation", 1}, {"cron", 1}, {"watch", 1}});
  CHECK(gantry::budget::budgetText(day, berlin(), w.now)
            .find("Skipped today: consolidation 1, "
                  "cron 1, watch 1.") != std::string::npos);
  // The next day, once the cap is reached again, the owner is told again (where no chat of
  // its own is: the owner's chat).
  w.now = kNow + kHour;
  w.budget->charge(150);
  CHECK(gate.unattended("consolidation", "", ""));
  REQUIRE(told.size() == 2);
  CHECK(told[1].first == "owner");
}

TEST_CASE("a capped provider makes no call past the cap", "[budget]") {
  World w("provider", 50);
  BudgetGate gate(*w.budget, nullptr, "");
  CountingProvider model;
  gantry::budget::CappedProvider capped(model, gate, "turn");
  gantry::CancelToken cancel;
  CHECK(capped.chat({}, nullptr, cancel).isOk());
  w.budget->charge(50);
  auto refused = capped.chat({}, nullptr, cancel);
  REQUIRE_FALSE(refused.isOk());
  CHECK(refused.status().message().rfind("skipped: Daily token cap reached: 50 of 50", 0) == 0);
  CHECK(model.calls == 1);
}
