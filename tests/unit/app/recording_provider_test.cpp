#include "app/recording_provider.h"

#include <catch2/catch.hpp>

#include "fakes/fake_provider.h"
#include "store/heartbeat_repo.h"
#include "unit/memory/temp_store.h"

namespace gantry::app {
namespace {

struct Recorded {
  testing::TempStore temp;
  store::UsageRepo usage{temp.store()};
  store::HeartbeatRepo heartbeat{temp.store()};
  testing::FakeProvider inner;
  RecordingProvider provider{inner, usage};

  Recorded() { REQUIRE(heartbeat.boot(1, 30, "stdio").isOk()); }

  Result<ChatResponse> call() {
    std::vector<ChatMessage> messages{{Role::kUser, "hello there", {}, {}, {}, {}, {}}};
    ChatRequest request;
    request.messages = &messages;
    CancelToken cancel;
    return provider.chat(request, nullptr, cancel);
  }
  std::string lastOutcome() { return heartbeat.read().value()->last_model_outcome; }
  int64_t calls() {
    const auto days = usage.daily(1, store::nowMs());
    REQUIRE(days.isOk());
    int64_t total = 0;
    for (const auto& day : days.value()) total += day.calls;
    return total;
  }
};

}  // namespace

TEST_CASE("every model call leaves a usage row and its outcome in the heartbeat") {
  Recorded r;
  r.inner.reply("hi");
  REQUIRE(r.call().isOk());
  CHECK(r.lastOutcome() == "ok");
  CHECK(r.calls() == 1);

  r.inner.fail(Status::error("HTTP 503 from the endpoint"));
  CHECK_FALSE(r.call().isOk());
  CHECK(r.lastOutcome() == "error: HTTP 503 from the endpoint");
  CHECK(r.calls() == 2);

  // A cancelled call is counted, but the heartbeat keeps the outcome that tells of the endpoint.
  r.inner.fail(Status::cancelled());
  CHECK(r.call().status().isCancelled());
  CHECK(r.lastOutcome() == "error: HTTP 503 from the endpoint");
  CHECK(r.calls() == 3);
}

}  // namespace gantry::app
