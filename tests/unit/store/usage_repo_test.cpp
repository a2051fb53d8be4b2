#include "store/usage_repo.h"

#include <catch2/catch.hpp>

#include "store/heartbeat_repo.h"
#include "unit/store/fresh_store.h"

using namespace gantry;
using gantry::testing::freshStore;

namespace {

constexpr int64_t kDay = 86400000;
constexpr int64_t kDec1 = 20423 * kDay;  // 2025-12-01T00:00:00Z

store::UsageRow call(int64_t at, int64_t prompt, int64_t completion, bool estimated = false) {
  store::UsageRow row;
  row.at = at;
  row.model = "m";
  row.prompt_tokens = prompt;
  row.completion_tokens = completion;
  row.cached_tokens = prompt / 2;
  row.estimated = estimated;
  row.outcome = "ok";
  return row;
}

}  // namespace

TEST_CASE("usage sums model calls per UTC day over the days asked for", "[store]") {
  auto s = freshStore("usage.db");
  store::UsageRepo repo(*s);
  REQUIRE(repo.record(call(kDec1 - 1, 1, 1)).isOk());      // Nov 30, 23:59:59.999
  REQUIRE(repo.record(call(kDec1 + 10, 100, 20)).isOk());  // Dec 1
  REQUIRE(repo.record(call(kDec1 + 3600000, 50, 5, true)).isOk());
  REQUIRE(repo.record(call(kDec1 + kDay + 5, 7, 3)).isOk());  // Dec 2
  auto two = repo.daily(2, kDec1 + kDay + 100);
  REQUIRE(two.isOk());
  REQUIRE(two->size() == 2);
  CHECK(two->at(0).date == "2025-12-01");
  CHECK(two->at(0).calls == 2);
  CHECK(two->at(0).prompt_tokens == 150);
  CHECK(two->at(0).completion_tokens == 25);
  CHECK(two->at(0).cached_tokens == 75);
  CHECK(two->at(0).estimated_calls == 1);
  CHECK(two->at(1).date == "2025-12-02");
  CHECK(repo.daily(3, kDec1 + kDay + 100)->size() == 3);
  CHECK(repo.daily(1, kDec1 + kDay + 100)->size() == 1);
}

TEST_CASE("a model call's usage row and the heartbeat's last outcome are written together",
          "[store]") {
  auto s = freshStore("usage_heartbeat.db");
  store::UsageRepo repo(*s);
  store::HeartbeatRepo heartbeat(*s);
  REQUIRE(heartbeat.boot(1, 30, "stdio").isOk());
  const std::string failed = "error: HTTP 500 from the endpoint";
  REQUIRE(repo.record(call(kDec1, 10, 2), &failed).isOk());
  auto row = heartbeat.read().value();
  REQUIRE(row.has_value());
  CHECK(row->last_model_outcome == failed);
  CHECK(row->last_model_at > 0);

  // A cancelled call is counted but says nothing of the endpoint: the outcome stays.
  REQUIRE(repo.record(call(kDec1 + 1, 3, 0)).isOk());
  CHECK(heartbeat.read().value()->last_model_outcome == failed);
  auto days = repo.daily(1, kDec1 + 2).value();
  REQUIRE(days.size() == 1);
  CHECK(days[0].calls == 2);
  CHECK(days[0].prompt_tokens == 13);
}

namespace {

/// The usage rows another connection sees: those committed.
int64_t committedCalls(const store::Store& owner) {
  auto reader = store::Store::open(owner.path(), store::Access::kReadOnly);
  REQUIRE(reader.isOk());
  auto days = store::UsageRepo(*reader.value()).daily(1, kDec1 + 1);
  REQUIRE(days.isOk());
  return days->empty() ? 0 : days->front().calls;
}

}  // namespace

TEST_CASE("the owner's usage row and the heartbeat's outcome are committed when recorded",
          "[store]") {
  auto s = freshStore("usage_committed.db");
  store::UsageRepo repo(*s);
  REQUIRE(store::HeartbeatRepo(*s).boot(1, 30, "stdio").isOk());
  const std::string failed = "error: HTTP 500 from the endpoint";
  REQUIRE(repo.record(call(kDec1, 10, 2), &failed).isOk());
  CHECK(committedCalls(*s) == 1);
  auto reader = store::Store::open(s->path(), store::Access::kReadOnly);
  REQUIRE(reader.isOk());
  auto beat = store::HeartbeatRepo(*reader.value()).read().value();
  REQUIRE(beat.has_value());
  CHECK(beat->last_model_outcome == failed);
}

TEST_CASE("a store that is not the owner writes a usage row at once", "[store]") {
  auto owner = freshStore("usage_operator.db");
  auto operator_store = store::Store::open(owner->path(), store::Access::kNoSchema);
  REQUIRE(operator_store.isOk());
  REQUIRE(store::UsageRepo(*operator_store.value()).record(call(kDec1, 1, 1)).isOk());
  CHECK(committedCalls(*owner) == 1);
}
