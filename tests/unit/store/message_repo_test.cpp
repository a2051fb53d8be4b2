#include "store/message_repo.h"

#include <catch2/catch.hpp>

#include "store/heartbeat_repo.h"
#include "store/prompt_budget_repo.h"
#include "store/session_repo.h"
#include "store/usage_repo.h"
#include "unit/store/fresh_store.h"

using namespace gantry;
using gantry::testing::freshStore;

TEST_CASE("messages round-trip through the record in order with their tool calls", "[store]") {
  auto s = freshStore("roundtrip.db");
  store::MessageRepo repo(*s);
  auto session = repo.session("chat-1");
  REQUIRE(session.isOk());
  CHECK(repo.session("chat-1").value() == session.value());
  ChatMessage user{Role::kUser, "hi", {}, {}, {}, {}, {}};
  ChatMessage assistant{
      Role::kAssistant, "", {}, {{"c1", "memory_recall", "{\"query\":\"x\"}", "sig"}}, {}, {},
      "thinking"};
  ChatMessage tool{Role::kTool, "result", {}, {}, "c1", "memory_recall", {}};
  REQUIRE(repo.append(session.value(), user).isOk());
  REQUIRE(repo.append(session.value(), assistant).isOk());
  REQUIRE(repo.append(session.value(), tool).isOk());
  auto history = repo.history(session.value());
  REQUIRE(history.isOk());
  REQUIRE(history->size() == 3);
  CHECK(history.value()[1].tool_calls.at(0).thought_signature == "sig");
  CHECK(history.value()[1].tool_calls.at(0).arguments == "{\"query\":\"x\"}");
  CHECK(history.value()[1].reasoning == "thinking");
  CHECK(history.value()[2].tool_call_id == "c1");
  REQUIRE(repo.clearHistory(session.value()).isOk());
  CHECK(repo.history(session.value())->empty());
}

TEST_CASE("a tool call left running is closed with a synthetic error, once", "[store]") {
  auto s = freshStore("orphans.db");
  store::MessageRepo repo(*s);
  auto session = repo.session("chat-1").value();
  ChatMessage assistant{Role::kAssistant, "", {}, {{"c9", "slow_tool", "{}", ""}}, {}, {}, {}};
  REQUIRE(repo.appendCalls(session, assistant).isOk());
  auto closed = repo.closeOrphanedToolCalls();
  REQUIRE(closed.isOk());
  REQUIRE(closed->size() == 1);
  CHECK(closed.value()[0].call_id == "c9");
  auto history = repo.history(session).value();
  REQUIRE(history.size() == 2);
  CHECK(history[1].role == Role::kTool);
  CHECK(history[1].tool_call_id == "c9");
  CHECK(history[1].content.find("interrupted by a restart, not re-run") != std::string::npos);
  CHECK(repo.closeOrphanedToolCalls()->empty());
}

TEST_CASE("the heartbeat row records boot, receives and model outcomes", "[store]") {
  auto s = freshStore("heartbeat.db");
  store::HeartbeatRepo hb(*s);
  CHECK(!hb.read().value().has_value());
  REQUIRE(hb.boot(123, 30, "stdio").isOk());
  REQUIRE(hb.beat(store::nowMs()).isOk());
  const std::string ok = "ok";
  REQUIRE(store::UsageRepo(*s).record({}, &ok).isOk());
  auto row = hb.read().value();
  REQUIRE(row.has_value());
  CHECK(row->pid == 123);
  CHECK(row->channel == "stdio");
  CHECK(row->last_receive_ok_at > 0);
  CHECK(row->last_model_outcome == "ok");
}

TEST_CASE("a turn's cost and its chat's standing prompt are recorded together", "[store]") {
  auto s = freshStore("turn_budget.db");
  store::MessageRepo repo(*s);
  const int64_t session = repo.session("chat-1").value();
  store::TurnCost turn;
  turn.session_id = session;
  turn.started_at = 1000;
  turn.outcome = "ok";
  store::StoredBudget first{
      "chat-1",
      2000,
      {{"persona", 10, ""}, {"history", 40, "4 messages"}, {"summary", 0, ""}, {"total", 50, ""}}};
  REQUIRE(repo.recordTurn(turn, &first).isOk());
  store::StoredBudget other{"chat-2", 2500, {{"persona", 7, ""}, {"total", 7, ""}}};
  REQUIRE(repo.recordTurn(turn, &other).isOk());

  // The next turn changes one part and has one part fewer: nothing of the first is left over.
  store::StoredBudget second{
      "chat-1", 3000, {{"persona", 10, ""}, {"history", 60, "6 messages"}, {"total", 70, ""}}};
  turn.started_at = 2900;
  REQUIRE(repo.recordTurn(turn, &second).isOk());
  store::PromptBudgetRepo budgets(*s);
  auto stored = budgets.load("chat-1").value();
  REQUIRE(stored.has_value());
  CHECK(stored->at == 3000);
  REQUIRE(stored->parts.size() == 3);
  for (std::size_t i = 0; i < 3; ++i) {
    CHECK(stored->parts[i].part == second.parts[i].part);
    CHECK(stored->parts[i].est_tokens == second.parts[i].est_tokens);
    CHECK(stored->parts[i].detail == second.parts[i].detail);
  }
  CHECK(budgets.load("").value()->chat_id == "chat-1");  // the chat recorded last
  CHECK(budgets.load("chat-2").value()->parts.size() == 2);
  CHECK(repo.lastTurn().value().started_at == 2900);

  // Without a standing prompt (a turn the chat's record does not follow) only the cost is kept.
  turn.started_at = 3500;
  REQUIRE(repo.recordTurn(turn).isOk());
  CHECK(repo.lastTurn().value().started_at == 3500);
  CHECK(budgets.load("chat-1").value()->at == 3000);
}

TEST_CASE("opening a chat's session reads its history and summary, or creates it", "[store]") {
  auto s = freshStore("open_session.db");
  store::MessageRepo repo(*s);
  auto fresh = repo.open("new-chat");
  REQUIRE(fresh.isOk());
  CHECK(fresh->id > 0);
  CHECK(fresh->history.empty());
  CHECK(fresh->summary.empty());
  CHECK(repo.session("new-chat").value() == fresh->id);  // the new session was kept

  REQUIRE(repo.append(fresh->id, {Role::kUser, "hello", {}, {}, {}, {}, {}}).isOk());
  REQUIRE(repo.append(fresh->id, {Role::kAssistant, "hi", {}, {}, {}, {}, {}}).isOk());
  REQUIRE(store::SessionRepo(*s).setSummary(fresh->id, "They greeted each other.").isOk());
  auto again = repo.open("new-chat");
  REQUIRE(again.isOk());
  CHECK(again->id == fresh->id);
  REQUIRE(again->history.size() == 2);
  CHECK(again->history[0].content == "hello");
  CHECK(again->history[1].role == Role::kAssistant);
  CHECK(again->summary == "They greeted each other.");
  CHECK(repo.open("other-chat")->id != fresh->id);
}
