#include "chat/chat_service.h"

#include <catch2/catch.hpp>

#include "chat/slash_commands.h"
#include "store/message_search.h"
#include "unit/chat/chat_fixture.h"
#include "unit/chat/manual_settle_clock.h"

using gantry::ChannelCaps;
using gantry::Role;
using gantry::Status;
using gantry::chat::ChatOptions;
using gantry::chat::ChatService;
using gantry::testing::AgentFixture;
using gantry::testing::call;
using gantry::testing::ChatFixture;
using gantry::testing::editable;
using gantry::testing::FakeChannel;
using gantry::testing::ManualSettleClock;
using std::chrono::milliseconds;

namespace {

const ManualSettleClock::TimePoint kStart{};  // where the manual clock starts

}  // namespace

TEST_CASE("/status answers with the application's status text", "[chat]") {
  ChatFixture f;
  f.say("/status");
  CHECK(f.channel.sent() == std::vector<std::string>{"status of chat"});
  CHECK(f.provider.requests().empty());
}

TEST_CASE("/tools answers with the published tools", "[chat]") {
  ChatFixture f;
  f.say("/tools");
  CHECK(f.channel.sent() == std::vector<std::string>{"lookup ~10 tokens"});
}

TEST_CASE("/tokens answers with the application's breakdown of the chat's prompt", "[chat]") {
  ChatFixture f;
  f.say("/tokens");
  CHECK(f.channel.sent() == std::vector<std::string>{"tokens of chat"});
  CHECK(f.provider.requests().empty());
}

TEST_CASE("/cancel with nothing running says there is nothing to cancel", "[chat]") {
  ChatFixture f;
  f.say("/cancel");
  CHECK(f.channel.sent() == std::vector<std::string>{"Nothing to cancel."});
}

TEST_CASE("/cancel halts the running turn and the message stays in the history", "[chat]") {
  ChatFixture f;
  f.provider.stall();
  f.say("wait for it");
  REQUIRE(f.provider.waitForRequests(1));
  f.say("/cancel");
  f.service().drain();
  // Nothing of the turn was on screen, so "Cancelled." is all the chat shows.
  CHECK(f.channel.sent() == std::vector<std::string>{"Cancelled."});
  f.provider.reply("fresh answer");
  f.say("next");
  f.service().drain();
  CHECK(f.userMessages() == std::vector<std::string>{"wait for it", "next"});
  CHECK(f.channel.waitFor("fresh answer"));
}

TEST_CASE("/new starts a fresh session", "[chat]") {
  ChatFixture f;
  f.provider.reply("hello");
  f.say("hi");
  f.service().drain();
  f.say("/new");
  f.service().drain();
  CHECK(f.channel.waitFor("New session started. Memory is kept."));
  CHECK(f.record().empty());
}

TEST_CASE("bubbles during a turn cancel it and run as one message after the settle period",
          "[chat]") {
  ChatFixture f;
  f.provider.stall();
  f.provider.reply("both answered");
  f.say("first part");
  REQUIRE(f.provider.waitForRequests(1));
  f.say("second part");
  REQUIRE(f.clock.waitForSleep(kStart + milliseconds(2000)));
  f.clock.advance(milliseconds(1999));
  REQUIRE(f.clock.waitForSleep(kStart + milliseconds(2000)));
  CHECK(f.provider.requests().size() == 1);  // still settling
  f.clock.advance(milliseconds(1));
  f.service().drain();
  auto requests = f.provider.requests();
  REQUIRE(requests.size() == 2);
  CHECK(requests[1].messages.back().content == "first part\nsecond part");
  // The interrupted message left the history; the joined one is there once.
  CHECK(f.userMessages() == std::vector<std::string>{"first part\nsecond part"});
  CHECK(f.channel.waitFor("both answered"));
}

TEST_CASE("a bubble before the settle period ends extends it", "[chat]") {
  ChatFixture f;
  f.provider.stall();
  f.provider.reply("all answered");
  f.say("one");
  REQUIRE(f.provider.waitForRequests(1));
  f.say("two");
  REQUIRE(f.clock.waitForSleep(kStart + milliseconds(2000)));
  f.clock.advance(milliseconds(1500));
  f.say("three");
  REQUIRE(f.clock.waitForSleep(kStart + milliseconds(3500)));
  f.clock.advance(milliseconds(600));  // past the first period's end, not the extended one's
  REQUIRE(f.clock.waitForSleep(kStart + milliseconds(3500)));
  CHECK(f.provider.requests().size() == 1);
  f.clock.advance(milliseconds(1400));
  f.service().drain();
  auto requests = f.provider.requests();
  REQUIRE(requests.size() == 2);
  CHECK(requests[1].messages.back().content == "one\ntwo\nthree");
  CHECK(f.userMessages() == std::vector<std::string>{"one\ntwo\nthree"});
}

namespace {

/// A message arriving while the first one's turn runs gets its own turn after it, with no
/// cancel and no settle wait.
void checkEachMessageRunsAlone(ChatFixture& f) {
  f.provider.hold("one");
  f.provider.reply("two");
  f.say("a");
  REQUIRE(f.provider.waitForRequests(1));
  f.say("b");
  f.provider.release();
  f.service().drain();
  auto requests = f.provider.requests();
  REQUIRE(requests.size() == 2);
  CHECK(requests[1].messages.back().content == "b");
  CHECK(f.userMessages() == std::vector<std::string>{"a", "b"});
  CHECK(f.channel.sent() == std::vector<std::string>{"one", "two"});
  CHECK(f.clock.sleeps() == 0);
}

}  // namespace

TEST_CASE("ordered input never coalesces: every message has its own turn", "[chat]") {
  ChannelCaps caps;
  caps.ordered_input = true;
  ChatFixture f(caps);
  checkEachMessageRunsAlone(f);
}

TEST_CASE("a settle time of 0 turns coalescing off", "[chat]") {
  ChatFixture f;
  f.chat_options.coalesce_settle_ms = 0;
  checkEachMessageRunsAlone(f);
}

TEST_CASE("the first turn after start shows the spin-up notice at once", "[chat]") {
  ChatFixture f(editable());
  f.chat_options.stream.stream = true;
  f.chat_options.stream.spinup_ms = 60000;
  f.provider.stall();
  f.say("slow");
  CHECK(f.channel.waitFor("⏳ working on it…"));
  f.say("/cancel");
  f.service().drain();
  // The note replaced the notice in its bubble.
  CHECK(f.channel.bubbles().front() == "(cancelled)");
}

TEST_CASE("the tool trace stays above the streamed reply", "[chat]") {
  ChatFixture f(editable());
  f.chat_options.stream.stream = true;
  f.provider.callTools({call("c1", "lookup")});
  f.provider.reply("found it");
  f.say("look it up");
  f.service().drain();
  CHECK(f.channel.bubbles().back() == "Making calls: ✓\n\nfound it");
}

TEST_CASE("a turn shows the typing indicator where the channel has one", "[chat][typing]") {
  ChatFixture f;
  f.provider.hold("done");
  f.say("hi");
  REQUIRE(f.provider.waitForRequests(1));
  CHECK(f.channel.waitForTyping(1));
  f.provider.release();
  f.service().drain();
  CHECK(f.channel.typed() == std::vector<std::string>{"chat"});
}

TEST_CASE("a channel without a typing indicator is never asked to show one", "[chat][typing]") {
  ChannelCaps caps;
  caps.shows_typing = false;
  ChatFixture f(caps);
  f.provider.hold("done");
  f.say("hi");
  REQUIRE(f.provider.waitForRequests(1));
  f.provider.release();
  f.service().drain();
  CHECK(f.channel.sent() == std::vector<std::string>{"done"});
  CHECK(f.channel.typed().empty());
}

TEST_CASE("a failed turn tells the user what failed", "[chat]") {
  ChatFixture f;
  f.provider.fail(Status::error("model: HTTP 500 (check the endpoint)"));
  f.say("hi");
  f.service().drain();
  auto sent = f.channel.sent();
  CHECK(std::find(sent.begin(), sent.end(), "⚠️ model: HTTP 500 (check the endpoint)") !=
        sent.end());
}

TEST_CASE("a scheduled turn returns its reply and sends it to the chat", "[chat]") {
  ChatFixture f;
  f.provider.reply("reminder: water the plants");
  auto reply = f.service().runScheduled("chat", "remind me");
  REQUIRE(reply.isOk());
  CHECK(reply.value() == "reminder: water the plants");
  CHECK(f.channel.sent() == std::vector<std::string>{"reminder: water the plants"});
}

namespace {

/// The id of the one pending approval (empty when there is none or several).
std::string pendingId(AgentFixture& f) {
  auto pending = f.approvals.pending();
  return pending.isOk() && pending->size() == 1 ? pending->front().id : "";
}

bool anyContains(const std::vector<std::string>& texts, const std::string& part) {
  return std::any_of(texts.begin(), texts.end(),
                     [&](const std::string& t) { return t.find(part) != std::string::npos; });
}

}  // namespace

TEST_CASE("/approve decides a waiting turn's call ahead of the chat's queue", "[chat][approvals]") {
  ChatFixture f;
  f.tools.policies["lookup"] = gantry::tools::Policy::kAsk;
  f.options.runner.approval_wait = std::chrono::minutes(5);
  f.provider.callTools({call("c1", "lookup")});
  f.provider.reply("looked it up");
  f.say("look it up");
  REQUIRE(f.channel.waitUntilSent(
      [](const auto& sent) { return anyContains(sent, "Approval needed to run lookup"); }));
  std::string id = pendingId(f);
  REQUIRE(id.size() == 8);
  f.say("/approve " + id);
  REQUIRE(f.channel.waitFor("looked it up"));
  CHECK(anyContains(f.channel.sent(), "Approved: lookup runs now."));
  CHECK(f.tools.started() == std::vector<std::string>{"lookup"});
  f.say("/approve " + id);
  CHECK(f.channel.sent().back() == "⚠️ approval " + id + " was already approved.");
}

TEST_CASE("a decision after the wait continues the parked turn in its chat", "[chat][approvals]") {
  ChatFixture f;
  f.tools.policies["lookup"] = gantry::tools::Policy::kAsk;
  f.options.runner.approval_wait = std::chrono::milliseconds(0);
  f.provider.callTools({call("c1", "lookup")});
  f.say("look it up");
  f.service().drain();
  std::string id = pendingId(f);
  REQUIRE(id.size() == 8);
  CHECK(f.channel.waitFor("⏸ Waiting for your approval to run lookup: /approve " + id +
                          " or /deny " + id + ". I will go on once you decide."));
  CHECK(f.tools.started().empty());

  // Another chat cannot decide it; its own chat can.
  f.service().onMessage({"other", "user", "User", "/approve " + id, {}, {}});
  CHECK(f.channel.sent().back() == "⚠️ there is no approval " + id + " for this chat.");
  f.provider.reply("here is what I found");
  f.say("/approve " + id);
  REQUIRE(f.channel.waitFor("here is what I found"));
  CHECK(f.tools.started() == std::vector<std::string>{"lookup"});
}

TEST_CASE("a parked denial reaches the model, a parked expiry only the owner",
          "[chat][approvals]") {
  ChatFixture f;
  f.tools.policies["lookup"] = gantry::tools::Policy::kAsk;
  f.options.runner.approval_wait = std::chrono::milliseconds(0);
  f.provider.callTools({call("c1", "lookup")});
  f.say("look it up");
  f.service().drain();
  std::string denied = pendingId(f);
  f.provider.reply("fine, I will not");
  f.say("/deny " + denied);
  REQUIRE(f.channel.waitFor("fine, I will not"));
  CHECK(anyContains(f.channel.sent(), "Denied: lookup will not run."));
  CHECK(f.provider.requests().back().messages.back().content.find("the owner denied") !=
        std::string::npos);

  f.provider.callTools({call("c2", "lookup")});
  f.say("try again");
  f.service().drain();
  std::string expiring = pendingId(f);
  REQUIRE(expiring.size() == 8);
  auto calls = f.provider.requests().size();
  f.clock_skew_ms = 16L * 60 * 1000;
  REQUIRE(f.channel.waitUntilSent([&](const auto& sent) {
    return anyContains(sent, "Approval " + expiring + " for lookup expired without an answer");
  }));
  CHECK(f.provider.requests().size() == calls);
  CHECK(f.tools.started().empty());
}

TEST_CASE("/help lists every slash command with what it does", "[chat]") {
  ChatFixture f;
  f.say("/help");
  REQUIRE(f.channel.sent().size() == 1);
  const std::string help = f.channel.sent()[0];
  for (const auto& command : gantry::chat::slashCommands()) {
    CHECK(help.find("\n/" + std::string(command.name)) != std::string::npos);
    CHECK(help.find(std::string(command.description)) != std::string::npos);
  }
  CHECK(help.find("/approve ID") != std::string::npos);
  CHECK(f.provider.requests().empty());  // never sent to the model
}

TEST_CASE("a report command answers with its text, or that it is not available", "[chat]") {
  ChatFixture f;
  f.say("/perf");
  f.say("/memstats@fake_bot");
  CHECK(f.channel.sent() == std::vector<std::string>{"/perf is not available here.",
                                                     "/memstats is not available here."});
  CHECK(f.provider.requests().empty());
}

TEST_CASE("every slash command is a valid Telegram bot command", "[chat]") {
  auto menu = gantry::chat::menuCommands();
  REQUIRE(menu.size() == gantry::chat::slashCommands().size());
  std::size_t i = 0;
  for (const auto& command : gantry::chat::slashCommands()) {
    const std::string name(command.name);
    CHECK(!name.empty());
    CHECK(name.size() <= 32);
    CHECK(name.find_first_not_of("abcdefghijklmnopqrstuvwxyz0123456789_") == std::string::npos);
    CHECK(!command.description.empty());
    CHECK(command.description.size() <= 200);
    CHECK(menu[i].name == name);
    CHECK(menu[i++].description.rfind(std::string(command.description), 0) == 0);
  }
}

TEST_CASE("a command after leading spaces is still a command", "[chat]") {
  ChatFixture f;
  f.say("  /status");
  CHECK(f.channel.sent() == std::vector<std::string>{"status of chat"});
  CHECK(f.provider.requests().empty());
}

TEST_CASE("a chat going idle indexes its turn's messages for search before drain returns",
          "[chat]") {
  ChatFixture f;
  f.provider.reply("the lighthouse keeper answers");
  f.say("ask the lighthouse");
  f.service().drain();
  CHECK(f.channel.waitFor("the lighthouse keeper answers"));
  auto found = gantry::store::searchMessages(f.temp.store(), "lighthouse", 10);
  REQUIRE(found.isOk());
  CHECK(found->size() == 2);
}

TEST_CASE("/approval ID shows the call with every argument in full, in its own chat only",
          "[chat][approvals]") {
  ChatFixture f;
  f.tools.policies["lookup"] = gantry::tools::Policy::kAsk;
  f.options.runner.approval_wait = std::chrono::milliseconds(0);
  const std::string long_value(400, 'q');
  f.provider.callTools({{"c1", "lookup", R"({"q":")" + long_value + R"(","a":1})", {}}});
  f.say("look it up");
  f.service().drain();
  std::string id = pendingId(f);
  REQUIRE(id.size() == 8);
  // The request cuts the long value; /approval prints it whole.
  CHECK(anyContains(f.channel.sent(), "more chars)"));
  f.say("/approval " + id);
  REQUIRE(f.channel.waitFor("Approval " + id + " (pending): lookup with:\na: 1\nq: \"" +
                            long_value + "\""));
  f.say("/approval nosuch12");
  CHECK(f.channel.waitFor("There is no approval nosuch12 here."));
  f.say("/approval");
  CHECK(f.channel.waitFor("Usage: /approval ID"));
}

TEST_CASE("a closed owner gate answers the message with its line and calls no model", "[chat]") {
  ChatFixture f;
  bool closed = false;
  f.chat_options.owner_gate = [&closed] { return closed ? std::string("cap reached") : ""; };
  f.chat_options.commands["/budget"] = [](const gantry::InboundMessage& m) {
    return "budget: " + m.text;
  };
  f.say("hello");
  f.service().drain();
  CHECK(f.provider.requests().size() == 1);
  closed = true;
  f.say("again");
  f.service().drain();
  f.say("/budget +5");  // answered at once, from the whole message
  f.service().drain();
  CHECK(f.provider.requests().size() == 1);
  REQUIRE(f.channel.sent().size() == 3);
  CHECK(f.channel.sent()[1] == "cap reached");
  CHECK(f.channel.sent()[2] == "budget: /budget +5");
}
