#include "chat/typing_pulses.h"

#include <algorithm>
#include <catch2/catch.hpp>
#include <future>

#include "fakes/fake_channel.h"

using gantry::chat::TypingPulses;
using gantry::testing::FakeChannel;

TEST_CASE("a started pulse shows the indicator at once, in each chat", "[chat][typing]") {
  FakeChannel channel;
  TypingPulses pulses(channel);
  pulses.start("a");
  REQUIRE(channel.waitForTyping(1));
  pulses.start("b");
  REQUIRE(channel.waitForTyping(2));
  pulses.stop("a");
  pulses.stop("b");
  auto typed = channel.typed();
  std::sort(typed.begin(), typed.end());
  CHECK(typed == std::vector<std::string>{"a", "b"});
}

TEST_CASE("stopping a pulse waits for its typing call under way", "[chat][typing]") {
  FakeChannel channel;
  TypingPulses pulses(channel);
  channel.holdTyping(true);
  pulses.start("chat");
  REQUIRE(channel.waitForTyping(1));
  auto stopped = std::async(std::launch::async, [&] { pulses.stop("chat"); });
  // The call is still held: stop must not have returned (the reply would overtake it).
  CHECK(stopped.wait_for(std::chrono::milliseconds(100)) == std::future_status::timeout);
  channel.holdTyping(false);
  stopped.get();
  CHECK(channel.typed() == std::vector<std::string>{"chat"});
}
