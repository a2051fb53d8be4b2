#include "health/channel_watch.h"

#include <catch2/catch.hpp>

using gantry::Status;
using gantry::health::channelVerdict;
using gantry::health::ChannelWatch;
using gantry::store::Heartbeat;

namespace {

Heartbeat row(int64_t started, int64_t received, int64_t sends_failing_since) {
  Heartbeat heartbeat;
  heartbeat.period_s = 1;
  heartbeat.started_at = started;
  heartbeat.beat_at = started;
  heartbeat.last_receive_ok_at = received;
  heartbeat.send_failing_since = sends_failing_since;
  return heartbeat;
}

}  // namespace

TEST_CASE("a side of the channel is failing only after three periods", "[health]") {
  CHECK_FALSE(channelVerdict(row(1000, 0, 0), 4000).receive_failing);  // boot counts
  CHECK(channelVerdict(row(1000, 0, 0), 4001).receive_failing);
  CHECK_FALSE(channelVerdict(row(0, 5000, 0), 8000).receive_failing);
  CHECK_FALSE(channelVerdict(row(0, 5000, 6000), 9000).send_failing);
  CHECK(channelVerdict(row(0, 8000, 6000), 9001).send_failing);
  CHECK_FALSE(channelVerdict(row(0, 8000, 0), 9001).send_failing);
}

TEST_CASE("sends fail from the first retryable failure until one succeeds", "[health]") {
  ChannelWatch watch;
  watch.sendOutcome(Status::error("telegram: sendMessage: HTTP 400 Bad Request"), 10);
  CHECK(watch.sides().send_failing_since == 0);  // a refused message says nothing of the channel
  watch.sendOutcome(Status::retry("telegram: sendMessage: HTTP 502 Bad Gateway"), 20);
  watch.sendOutcome(Status::retry("telegram: sendMessage: network error"), 30);
  CHECK(watch.sides().send_failing_since == 20);
  CHECK(watch.sides().send_error == "telegram: sendMessage: HTTP 502 Bad Gateway");
  watch.sendOutcome(Status::ok(), 40);
  CHECK(watch.sides().send_failing_since == 0);
  CHECK(watch.sides().send_error.empty());
  watch.receiveOk(50);
  CHECK(watch.sides().last_receive_ok_at == 50);
}
