// Turns a crash cut short: continued once from the record, never running a call again; and
// how every turn closes in the record (reply queued in the outbox, failure notice, cancel).
#include <catch2/catch.hpp>
#include <thread>

#include "agent/agent.h"
#include "store/outbox_repo.h"
#include "store/turn_repo.h"
#include "unit/agent/agent_fixture.h"

using gantry::CancelToken;
using gantry::ChatMessage;
using gantry::Role;
using gantry::Status;
using gantry::testing::AgentFixture;
using gantry::testing::call;

namespace {

/// The agent fixture with a view of the open turns and the outbox.
struct ResumeFixture : AgentFixture {
  gantry::store::TurnRepo turns{temp.store()};
  gantry::store::OutboxRepo outbox{temp.store()};

  int64_t session() { return messages.session("chat").value(); }
  /// The record a crash leaves after the user message was recorded.
  void crashAfterUserMessage(const std::string& text) {
    ChatMessage user{Role::kUser, text, {}, {}, {}, {}, {}};
    REQUIRE(turns.open(session(), user, {}).isOk());
  }
  /// The record a crash leaves while a call ran, after the restart closed it.
  void crashWhileToolRan() {
    crashAfterUserMessage("look it up");
    ChatMessage calls{Role::kAssistant, "", {}, {call("c1", "lookup")}, {}, {}, {}};
    REQUIRE(messages.appendCalls(session(), calls).isOk());
    REQUIRE(messages.closeOrphanedToolCalls()->size() == 1);
  }
  gantry::agent::TurnResult resume(const CancelToken& cancel = CancelToken()) {
    auto request = AgentFixture::request("");
    request.resume = true;
    return agent().run(request, observer, cancel);
  }
  std::vector<std::string> pendingTexts() {
    std::vector<std::string> out;
    auto pending = outbox.pending().value();
    out.reserve(pending.size());
    for (const auto& item : pending) out.push_back(item.text);
    return out;
  }
};

}  // namespace

TEST_CASE("a turn cut short before the model answered continues from its message", "[agent]") {
  ResumeFixture f;
  f.crashAfterUserMessage("are you there?");
  f.provider.reply("yes, here");
  auto result = f.resume();
  REQUIRE(result.status.isOk());
  CHECK(result.reply == "yes, here");
  REQUIRE(f.provider.requests().size() == 1);
  CHECK(f.provider.requests()[0].messages.back().content == "are you there?");
  CHECK(f.turns.openTurns()->empty());
  CHECK(f.pendingTexts() == std::vector<std::string>{"yes, here"});
  CHECK(f.record().size() == 2);  // the message once, then the reply
}

TEST_CASE("a turn whose call was cut short continues with the interrupted result, nothing re-run",
          "[agent]") {
  ResumeFixture f;
  f.crashWhileToolRan();
  f.provider.reply("the lookup was interrupted; shall I try again?");
  auto result = f.resume();
  REQUIRE(result.status.isOk());
  CHECK(f.tools.started().empty());
  REQUIRE(f.provider.requests().size() == 1);
  const auto last = f.provider.requests()[0].messages.back();
  CHECK(last.role == Role::kTool);
  CHECK(last.content.find("interrupted by a restart, not re-run") != std::string::npos);
  CHECK(f.turns.openTurns()->empty());
}

TEST_CASE("a continuation is marked resumed before its model call", "[agent]") {
  ResumeFixture f;
  f.crashAfterUserMessage("hello");
  f.provider.stall();
  CancelToken cancel;
  std::thread turn([&] {
    auto request = AgentFixture::request("");
    request.resume = true;
    request.keep_open_if_cancelled = [] { return true; };  // a shutdown
    f.agent().run(request, f.observer, cancel);
  });
  REQUIRE(f.provider.waitForRequests(1));
  auto open = f.turns.openTurns().value();
  REQUIRE(open.size() == 1);
  CHECK(open[0].resumed);
  cancel.cancel();
  turn.join();
  REQUIRE(f.turns.openTurns()->size() == 1);  // kept for the next start, which will not resume
  CHECK(f.turns.openTurns().value()[0].resumed);
}

TEST_CASE("resuming a chat without an open turn fails and calls no model", "[agent]") {
  ResumeFixture f;
  auto result = f.resume();
  CHECK_FALSE(result.status.isOk());
  CHECK(f.provider.requests().empty());
}

TEST_CASE("a reply is queued in the outbox as the turn closes", "[agent]") {
  ResumeFixture f;
  f.provider.reply("hello there");
  auto result = f.run("hi");
  REQUIRE(result.status.isOk());
  CHECK(result.outbox_id != 0);
  CHECK(f.pendingTexts() == std::vector<std::string>{"hello there"});
  CHECK(f.turns.openTurns()->empty());
}

TEST_CASE("a failed turn closes with the notice the owner is told", "[agent]") {
  ResumeFixture f;
  f.provider.fail(Status::error("model: HTTP 500"));
  auto result = f.run("hi");
  CHECK_FALSE(result.status.isOk());
  CHECK(result.outbox_id != 0);
  CHECK(f.pendingTexts() == std::vector<std::string>{"⚠️ model: HTTP 500"});
  CHECK(f.turns.openTurns()->empty());
}

TEST_CASE("a cancelled turn stays open only when the caller asks", "[agent]") {
  bool keep = GENERATE(false, true);
  ResumeFixture f;
  f.provider.stall();
  CancelToken cancel;
  std::thread turn([&] {
    auto request = AgentFixture::request("wait");
    request.keep_open_if_cancelled = [keep] { return keep; };
    f.agent().run(request, f.observer, cancel);
  });
  REQUIRE(f.provider.waitForRequests(1));
  cancel.cancel();
  turn.join();
  CHECK(f.turns.openTurns()->size() == (keep ? 1u : 0u));
  CHECK(f.outbox.pending()->empty());
}

TEST_CASE("an untracked turn (an API task) keeps no open turn and queues nothing", "[agent]") {
  ResumeFixture f;
  f.provider.reply("task done");
  auto request = AgentFixture::request("do the task");
  request.track = false;
  CancelToken cancel;
  auto result = f.agent().run(request, f.observer, cancel);
  REQUIRE(result.status.isOk());
  CHECK(result.outbox_id == 0);
  CHECK(f.outbox.pending()->empty());
  CHECK(f.turns.openTurns()->empty());
  CHECK(f.record().size() == 2);
}
