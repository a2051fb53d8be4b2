// What a crash left unanswered is answered once at the next start: replies recorded but not
// delivered, turns left open, messages a channel hands over again.
#include <catch2/catch.hpp>

#include "store/inbox_repo.h"
#include "store/outbox_repo.h"
#include "store/turn_repo.h"
#include "unit/chat/chat_fixture.h"

using gantry::ChannelCaps;
using gantry::ChatMessage;
using gantry::InboundMessage;
using gantry::Role;
using gantry::testing::ChatFixture;

namespace {

ChannelCaps lostOnRestart() {
  ChannelCaps caps;
  caps.replays_inbox = false;
  return caps;
}

/// The chat fixture with the record a crash leaves, written directly.
struct RecoveryFixture : ChatFixture {
  gantry::store::TurnRepo turns{temp.store()};
  gantry::store::OutboxRepo outbox{temp.store()};
  gantry::store::InboxRepo inbox{temp.store()};

  explicit RecoveryFixture(ChannelCaps caps = {}) : ChatFixture(caps) {}
  int64_t session() { return messages.session("chat").value(); }
  void crashAfterUserMessage(const std::string& text) {
    ChatMessage user{Role::kUser, "[now] Monday\n\n" + text, {}, {}, {}, {}, {}};
    REQUIRE(turns.open(session(), user, {}).isOk());
  }
  void crashBeforeDelivery(const std::string& reply) {
    crashAfterUserMessage("question");
    ChatMessage answer{Role::kAssistant, reply, {}, {}, {}, {}, {}};
    REQUIRE(turns.closeWithReply(session(), "chat", answer).isOk());
  }
  void recover() {
    service().recoverAfterRestart();
    service().drain();
  }
};

/// How many replies another connection sees as undelivered: what the record holds.
std::size_t undeliveredOnDisk(const std::string& path) {
  auto reader = gantry::store::Store::open(path, gantry::store::Access::kReadOnly);
  REQUIRE(reader.isOk());
  auto pending = gantry::store::OutboxRepo(*reader.value()).pending();
  REQUIRE(pending.isOk());
  return pending->size();
}

InboundMessage platformMessage(const std::string& text, const std::string& id) {
  auto message = gantry::testing::FakeChannel::message(text);
  message.message_id = id;
  return message;
}

}  // namespace

TEST_CASE("a reply recorded but not delivered before a crash is sent once at the next start",
          "[chat]") {
  RecoveryFixture f;
  f.crashBeforeDelivery("the answer");
  f.recover();
  CHECK(f.channel.sent() == std::vector<std::string>{"the answer"});
  CHECK(f.outbox.pending()->empty());
  f.service_.reset();  // the start after that
  f.recover();
  CHECK(f.channel.sent().size() == 1);
}

TEST_CASE("a reply whose send a crash cut short is sent again, marked as a possible repeat",
          "[chat]") {
  RecoveryFixture f;
  f.crashBeforeDelivery("the answer");
  auto pending = f.outbox.pending().value();
  REQUIRE(pending.size() == 1);
  REQUIRE(f.outbox.markSending(pending[0].id).isOk());
  f.recover();
  CHECK(f.channel.sent() ==
        std::vector<std::string>{
            "(Sent again after a restart: this may have reached you already.)\n\nthe answer"});
  CHECK(f.outbox.pending()->empty());
}

TEST_CASE("a turn a crash left open is continued and its reply delivered", "[chat]") {
  RecoveryFixture f;
  f.crashAfterUserMessage("are you there?");
  f.provider.reply("yes, here");
  f.recover();
  CHECK(f.channel.sent() == std::vector<std::string>{"yes, here"});
  CHECK(f.turns.openTurns()->empty());
  CHECK(f.outbox.pending()->empty());
}

TEST_CASE("a turn interrupted again while continued gets a notice, not a third attempt", "[chat]") {
  RecoveryFixture f;
  f.crashAfterUserMessage("are you there?");
  REQUIRE(f.turns.markResumed(f.session()).isOk());
  f.recover();
  CHECK(f.provider.requests().empty());
  REQUIRE(f.channel.sent().size() == 1);
  CHECK(f.channel.sent()[0] ==
        "I was interrupted twice while answering \"are you there?\", so I stopped rather than "
        "try a third time. Please send it again if it still matters.");
  CHECK(f.turns.openTurns()->empty());
  CHECK(f.outbox.pending()->empty());
}

TEST_CASE("a channel whose input does not survive a restart gets nothing of the last run",
          "[chat]") {
  RecoveryFixture f(lostOnRestart());
  f.crashAfterUserMessage("are you there?");
  f.crashBeforeDelivery("the answer");
  REQUIRE(f.inbox.add(gantry::testing::FakeChannel::message("never recorded")).isOk());
  f.recover();
  CHECK(f.channel.sent().empty());
  CHECK(f.provider.requests().empty());
  CHECK(f.turns.openTurns()->empty());
  CHECK(f.outbox.pending()->empty());
  CHECK(f.inbox.pending()->empty());
}

TEST_CASE(
    "a delivered reply is confirmed, and one the channel refused is sent again once sends work",
    "[chat]") {
  RecoveryFixture f;
  f.provider.reply("hello");
  f.say("hi");
  f.service().drain();
  CHECK(f.outbox.pending()->empty());
  f.channel.failSends(true);
  f.provider.reply("are you there?");
  f.say("again");
  f.service().drain();
  REQUIRE(f.outbox.pending()->size() == 1);
  CHECK(f.outbox.pending().value()[0].text == "are you there?");
  f.service().redeliverRefused();  // the heartbeat's retry while the platform is still down
  f.service().drain();
  CHECK(f.outbox.pending()->size() == 1);
  f.channel.failSends(false);
  f.service().redeliverRefused();
  f.service().drain();
  CHECK(f.outbox.pending()->empty());
  REQUIRE(f.channel.sent().size() == 2);
  CHECK(f.channel.sent()[1].find("may have reached you already") != std::string::npos);
  CHECK(f.channel.sent()[1].find("are you there?") != std::string::npos);
  f.service().redeliverRefused();  // nothing left: nothing sent twice
  f.service().drain();
  CHECK(f.channel.sent().size() == 2);
}

TEST_CASE("a message a channel hands over again after a restart is answered once", "[chat]") {
  RecoveryFixture f;
  f.provider.reply("hello");
  f.service().onMessage(platformMessage("hi", "m1"));
  f.service().drain();
  f.service().onMessage(platformMessage("hi", "m1"));
  f.service().drain();
  CHECK(f.provider.requests().size() == 1);
  CHECK(f.channel.sent() == std::vector<std::string>{"hello"});
}

TEST_CASE("a backlog the inbox holds at start is answered in one turn", "[chat]") {
  RecoveryFixture f;
  REQUIRE(f.inbox.add(platformMessage("first", "m1")).isOk());
  REQUIRE(f.inbox.add(platformMessage("second", "m2")).isOk());
  f.provider.reply("both answered");
  f.service().recoverAfterRestart();
  REQUIRE(f.channel.waitFor("both answered"));  // bounded, unlike a settle on the manual clock
  f.service().drain();
  auto requests = f.provider.requests();
  REQUIRE(requests.size() == 1);
  CHECK(requests[0].messages.back().content == "first\nsecond");
  CHECK(f.channel.sent() == std::vector<std::string>{"both answered"});
  CHECK(f.inbox.pending()->empty());
}

TEST_CASE("a turn a shutdown cut short stays open with its message for the next start", "[chat]") {
  RecoveryFixture f;
  f.provider.stall();
  f.say("a long question");
  REQUIRE(f.provider.waitForRequests(1));
  f.service().shutdown(std::chrono::milliseconds(0));
  REQUIRE(f.turns.openTurns()->size() == 1);
  CHECK(f.userMessages().size() == 1);  // still in the history the continuation will send
  f.service_.reset();
  f.provider.reply("the long answer");
  f.recover();
  CHECK(f.channel.sent().back() == "the long answer");
  CHECK(f.turns.openTurns()->empty());
}

TEST_CASE("a delivered reply is marked so on disk once its chat goes idle", "[chat]") {
  RecoveryFixture f;
  f.provider.reply("the answer");
  f.say("question");
  f.service().drain();
  CHECK(f.channel.sent() == std::vector<std::string>{"the answer"});
  CHECK(undeliveredOnDisk(f.temp.path()) == 0);  // a kill now sends nothing again
}

TEST_CASE("replies sent at the start are marked so on disk before any chat runs", "[chat]") {
  RecoveryFixture f;
  f.crashBeforeDelivery("the answer");
  REQUIRE(undeliveredOnDisk(f.temp.path()) == 1);
  f.service().recoverAfterRestart();
  CHECK(f.channel.sent() == std::vector<std::string>{"the answer"});
  CHECK(undeliveredOnDisk(f.temp.path()) == 0);
}
