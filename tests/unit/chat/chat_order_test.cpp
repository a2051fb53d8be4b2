// Nothing the owner sent is dropped or answered out of order: commands take their turn on
// ordered input, drops on chat channels are told, messages received together are one turn.
#include <catch2/catch.hpp>
#include <thread>

#include "chat/chat_events.h"
#include "chat/chat_service.h"
#include "chat/slash_commands.h"
#include "store/inbox_repo.h"
#include "unit/chat/chat_fixture.h"

using gantry::ChannelCaps;
using gantry::InboundMessage;
using gantry::Status;
using gantry::testing::ChatFixture;
using gantry::testing::FakeChannel;

namespace {

ChannelCaps orderedInput() {
  ChannelCaps caps;
  caps.ordered_input = true;
  caps.replays_inbox = false;
  return caps;
}

/// Runs a scheduled turn on another thread (runScheduled blocks until it ends); its held reply
/// returns when cancelled, or after the fake's guard time if a check failed first.
struct ScheduledRun {
  std::thread thread;
  explicit ScheduledRun(ChatFixture& f)
      : thread([&f] { (void)f.service().runScheduled("chat", "remind me"); }) {}
  ~ScheduledRun() { thread.join(); }
};

}  // namespace

TEST_CASE("on ordered input /new takes its turn after the line before it", "[chat][order]") {
  ChatFixture f(orderedInput());
  f.provider.hold("alpha answered");
  f.provider.reply("beta answered");
  f.say("say alpha");
  REQUIRE(f.provider.waitForRequests(1));
  f.say("/new");
  f.say("say beta");
  f.provider.release();
  f.service().drain();
  CHECK(f.channel.sent() == std::vector<std::string>{"alpha answered",
                                                     "New session started. Memory is kept.",
                                                     "beta answered"});
  auto requests = f.provider.requests();
  REQUIRE(requests.size() == 2);
  CHECK(requests[0].messages.back().content == "say alpha");
  CHECK(requests[1].messages.back().content == "say beta");
  CHECK(f.userMessages() == std::vector<std::string>{"say beta"});  // alpha went with /new
}

TEST_CASE("on ordered input /cancel drops none of the lines around it", "[chat][order]") {
  ChatFixture f(orderedInput());
  f.provider.hold("a answered");
  f.provider.reply("b answered");
  f.provider.reply("c answered");
  f.say("say a");
  REQUIRE(f.provider.waitForRequests(1));
  f.say("say b");
  f.say("/cancel");
  f.say("say c");
  f.provider.release();
  f.service().drain();
  CHECK(f.channel.sent() ==
        std::vector<std::string>{"a answered", "b answered", "Nothing to cancel.", "c answered"});
  CHECK(f.userMessages() == std::vector<std::string>{"say a", "say b", "say c"});
}

TEST_CASE("on ordered input a report command answers after the turns before it", "[chat][order]") {
  ChatFixture f(orderedInput());
  f.provider.hold("one");
  f.say("hi");
  REQUIRE(f.provider.waitForRequests(1));
  f.say("/status");
  f.say("/help");
  CHECK(f.channel.sent().empty());
  f.provider.release();
  f.service().drain();
  auto sent = f.channel.sent();
  REQUIRE(sent.size() == 3);
  CHECK(sent[0] == "one");
  CHECK(sent[1] == "status of chat");
  CHECK(sent[2] == gantry::chat::helpText());
}

TEST_CASE("on ordered input /approve is answered at once, while the turn waits for it",
          "[chat][order][approvals]") {
  ChatFixture f(orderedInput());
  f.tools.policies["lookup"] = gantry::tools::Policy::kAsk;
  f.options.runner.approval_wait = std::chrono::minutes(5);
  f.provider.callTools({gantry::testing::call("c1", "lookup")});
  f.provider.reply("looked it up");
  f.say("look it up");
  REQUIRE(f.channel.waitUntilSent([](const auto& sent) { return !sent.empty(); }));
  auto pending = f.approvals.pending();
  REQUIRE(pending.isOk());
  REQUIRE(pending->size() == 1);
  f.say("/approve " + pending->front().id);
  REQUIRE(f.channel.waitFor("looked it up"));
  f.service().drain();
  CHECK(f.tools.started() == std::vector<std::string>{"lookup"});
}

TEST_CASE("/cancel on a chat channel tells how many waiting messages it dropped", "[chat][order]") {
  ChatFixture f;
  f.provider.hold("cron answered");
  {
    ScheduledRun cron(f);  // a scheduled turn: a bubble waits for it instead of cutting it
    REQUIRE(f.provider.waitForRequests(1));
    f.say("waiting one");
    f.say("/cancel");
  }
  f.service().drain();
  CHECK(f.channel.sent() == std::vector<std::string>{"Cancelled. 1 waiting message was dropped."});
  CHECK(f.provider.requests().size() == 1);
  CHECK(gantry::store::InboxRepo(f.temp.store()).pending()->empty());
}

TEST_CASE("/cancel while bubbles settle drops them and says how many", "[chat][order]") {
  ChatFixture f;
  f.provider.stall();
  f.say("first part");
  REQUIRE(f.provider.waitForRequests(1));
  f.say("second part");
  // The worker settles only once the interrupted message waits again at the front.
  REQUIRE(f.clock.waitForSleep(gantry::testing::ManualSettleClock::TimePoint{} +
                               std::chrono::milliseconds(2000)));
  f.say("/cancel");
  f.service().drain();
  CHECK(f.channel.sent() ==
        std::vector<std::string>{"Cancelled. 2 waiting messages were dropped."});
  CHECK(f.provider.requests().size() == 1);
}

TEST_CASE("/new on a chat channel tells how many waiting messages it dropped", "[chat][order]") {
  ChatFixture f;
  f.provider.hold("cron answered");
  {
    ScheduledRun cron(f);
    REQUIRE(f.provider.waitForRequests(1));
    f.say("waiting one");
    f.say("waiting two");
    f.say("/new");
  }
  f.service().drain();
  CHECK(f.channel.sent() == std::vector<std::string>{"New session started. Memory is kept. 2 "
                                                     "waiting messages were dropped."});
  CHECK(f.provider.requests().size() == 1);
}

TEST_CASE("messages received together are one turn, with none started for the first alone",
          "[chat][order]") {
  ChatFixture f;
  f.provider.reply("both answered");
  std::vector<InboundMessage> batch{FakeChannel::message("first"), FakeChannel::message("second")};
  f.service().onMessages(std::move(batch));
  // Bounded: a turn cancelled for the second message would settle on the manual clock.
  REQUIRE(f.channel.waitFor("both answered"));
  f.service().drain();
  auto requests = f.provider.requests();
  REQUIRE(requests.size() == 1);
  CHECK(requests[0].messages.back().content == "first\nsecond");
  CHECK(f.userMessages() == std::vector<std::string>{"first\nsecond"});
  CHECK(f.clock.sleeps() == 0);  // joined as received: no settle period
  CHECK(f.channel.sent() == std::vector<std::string>{"both answered"});
}

TEST_CASE("failed turns are counted, cancelled ones are not", "[chat][order]") {
  ChatFixture f(orderedInput());
  f.provider.fail(Status::error("model: HTTP 500 (check the endpoint)"));
  f.provider.reply("fine");
  f.say("one");
  f.say("two");
  f.service().drain();
  CHECK(f.service().failedTurns() == 1);
  f.provider.stall();
  f.say("three");
  REQUIRE(f.provider.waitForRequests(3));
  f.service().shutdown(std::chrono::milliseconds(0));
  CHECK(f.service().failedTurns() == 1);
}

TEST_CASE("the dropped notice counts in words", "[chat][order]") {
  CHECK(gantry::chat::droppedNotice(0).empty());
  CHECK(gantry::chat::droppedNotice(1) == "1 waiting message was dropped.");
  CHECK(gantry::chat::droppedNotice(2) == "2 waiting messages were dropped.");
}

TEST_CASE("the command word ignores leading spaces, a bot name and arguments", "[chat][order]") {
  CHECK(gantry::chat::commandWord("  /perf@fake_bot now") == "/perf");
  CHECK(gantry::chat::commandWord("/approve ab12cd34") == "/approve");
  CHECK(gantry::chat::commandWord("say /new").empty());
}

TEST_CASE("an unknown slash command is answered as one and never reaches the model",
          "[chat][order]") {
  ChatFixture f(orderedInput());
  f.provider.reply("path answered");
  f.say("/bogus");
  f.say("/usr/bin is a folder");
  f.service().drain();
  CHECK(f.channel.sent() ==
        std::vector<std::string>{"/bogus: unknown command; /help lists them.", "path answered"});
  REQUIRE(f.provider.requests().size() == 1);
  CHECK(f.provider.requests()[0].messages.back().content == "/usr/bin is a folder");
  CHECK(gantry::chat::looksLikeCommand("/bogus_2"));
  CHECK_FALSE(gantry::chat::looksLikeCommand("/usr/bin"));
  CHECK_FALSE(gantry::chat::looksLikeCommand("/"));
  CHECK_FALSE(gantry::chat::looksLikeCommand("/2fa"));
}
