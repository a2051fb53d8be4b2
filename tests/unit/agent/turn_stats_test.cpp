// What a turn leaves for /perf, /toolstats and /tokens (and their CLI forms): its costs, the
// tools its calls ran as, the repairs the host made, and the chat's standing prompt.
#include <sqlite3.h>

#include <algorithm>
#include <catch2/catch.hpp>
#include <sstream>

#include "agent/perf_command.h"
#include "agent/tokens_command.h"
#include "agent_fixture.h"
#include "store/prompt_budget_repo.h"
#include "store/stats_repo.h"

using namespace gantry;
using gantry::testing::AgentFixture;
using gantry::testing::call;

namespace {

ChatResponse textReply(std::string content, int64_t first_token_ms = -1,
                       int64_t prompt_tokens = 0) {
  ChatResponse r;
  r.message.content = std::move(content);
  r.first_token_ms = first_token_ms;
  r.usage.prompt_tokens = prompt_tokens;
  return r;
}

int64_t repairs(store::Store& store, const std::string& kind) {
  auto counts = store::StatsRepo(store).repairs().value();
  for (const auto& r : counts) {
    if (r.kind == kind) return r.count;
  }
  return -1;
}

}  // namespace

TEST_CASE("a turn records its first-token time, its calls and the tool each call ran as",
          "[agent][stats]") {
  AgentFixture f;
  ChatResponse first;
  first.message.tool_calls = {call("c1", "functions.lookup")};
  first.first_token_ms = 15;
  first.usage.prompt_tokens = 100;
  f.provider.respond(first);
  f.provider.respond(textReply("done", 30, 120));
  REQUIRE(f.run("look it up").status.isOk());
  auto turns = store::StatsRepo(f.temp.store()).recentTurns(10).value();
  REQUIRE(turns.size() == 1);
  CHECK(turns[0].chat_id == "chat");
  CHECK(turns[0].first_token_ms == 15);
  CHECK(turns[0].model_calls == 2);
  CHECK(turns[0].tool_calls == 1);
  CHECK(turns[0].prompt_tokens == 220);
  CHECK(turns[0].outcome == "ok");
  auto tools = store::StatsRepo(f.temp.store()).toolStats().value();
  REQUIRE(tools.size() == 1);
  CHECK(tools[0].tool == "lookup");  // as it ran, not as the model wrote it
  CHECK(tools[0].calls == 1);
  CHECK(tools[0].ok == 1);
  CHECK(tools[0].result_chars == static_cast<int64_t>(std::string("ok lookup").size()));
  CHECK(repairs(f.temp.store(), "name_repaired") == 1);
  CHECK(repairs(f.temp.store(), "unknown_tool") == 0);
}

TEST_CASE("an unknown tool, a constrained retry, a printed call and a think stall count once each",
          "[agent][stats]") {
  AgentFixture f;
  f.provider.callTools({call("c1", "lookp")});              // unknown: closest is lookup
  f.provider.reply(R"({"name":"lookup","arguments":{}})");  // the constrained retry's answer
  f.provider.reply(R"(<tool_call>{"name":"fetch","arguments":{}}</tool_call>)");
  ChatResponse stalled;
  stalled.message.reasoning = "the answer is 42";
  f.provider.respond(stalled);
  auto result = f.run("go");
  REQUIRE(result.status.isOk());
  CHECK(result.reply == "the answer is 42");
  auto& store = f.temp.store();
  CHECK(repairs(store, "unknown_tool") == 1);
  CHECK(repairs(store, "constrained_retry") == 1);
  CHECK(repairs(store, "printed_call") == 1);  // the constrained answer is not a printed call
  CHECK(repairs(store, "think_promoted") == 1);
  CHECK(repairs(store, "name_repaired") == 0);
  auto tools = store::StatsRepo(store).toolStats().value();
  REQUIRE(tools.size() == 2);  // the unknown name is no tool
  CHECK(tools[0].tool == "fetch");
  CHECK(tools[1].tool == "lookup");
}

TEST_CASE("the chat's standing prompt is recorded as its turn ends", "[agent][stats]") {
  AgentFixture f;
  f.provider.reply("hello");
  REQUIRE(f.run("hi").status.isOk());
  auto stored = store::PromptBudgetRepo(f.temp.store()).load("").value();
  REQUIRE(stored.has_value());
  CHECK(stored->chat_id == "chat");
  auto live = agent::promptBudget(f.agent().standingPrompt("chat"));
  REQUIRE(stored->parts.size() == live.size());
  for (std::size_t i = 0; i < live.size(); ++i) {
    CHECK(stored->parts[i].part == live[i].part);
    CHECK(stored->parts[i].est_tokens == live[i].est_tokens);
    CHECK(stored->parts[i].detail == live[i].detail);
  }
}

TEST_CASE("gantry tokens and gantry perf print the recorded rows tab-separated", "[agent][stats]") {
  AgentFixture f;
  f.provider.respond(textReply("hello", 12, 77));
  REQUIRE(f.run("hi").status.isOk());
  std::ostringstream out, err;
  REQUIRE(agent::tokensCommand(f.temp.store(), {}, out, err) == 0);
  const std::string tokens = out.str();
  CHECK(tokens.rfind("chat\tchat\t", 0) == 0);
  CHECK(tokens.find("\npersona\t") != std::string::npos);
  CHECK(tokens.find("\ntotal\t") != std::string::npos);
  CHECK(tokens.find("\nreported\t77\t") != std::string::npos);
  CHECK(agent::tokensCommand(f.temp.store(), {"other"}, out, err) == 1);
  CHECK(err.str().find("no standing prompt recorded for chat other") != std::string::npos);
  CHECK(agent::tokensCommand(f.temp.store(), {"a", "b"}, out, err) == 2);

  std::ostringstream perf;
  REQUIRE(agent::perfCommand(f.temp.store(), {}, perf, err) == 0);
  std::istringstream lines(perf.str());
  std::string line;
  REQUIRE(std::getline(lines, line));
  std::vector<std::string> fields;
  std::istringstream cells(line);
  for (std::string cell; std::getline(cells, cell, '\t');) fields.push_back(cell);
  REQUIRE(fields.size() == 10);
  CHECK(fields[1] == "chat");
  CHECK(fields[2] == "ok");
  CHECK(fields[4] == "12");
  CHECK(fields[7] == "1");
  CHECK(fields[9] == "77");
  CHECK_FALSE(std::getline(lines, line));
  CHECK(agent::perfText(f.temp.store()).find("first token 12 ms") != std::string::npos);
}

TEST_CASE("perf shows the last ten turns, newest first", "[agent][stats]") {
  AgentFixture f;
  for (int i = 0; i < 12; ++i) f.provider.respond(textReply("r", i));
  for (int i = 0; i < 12; ++i) REQUIRE(f.run("m" + std::to_string(i)).status.isOk());
  auto turns = store::StatsRepo(f.temp.store()).recentTurns(agent::kPerfTurns).value();
  REQUIRE(turns.size() == 10);
  CHECK(turns.front().first_token_ms == 11);
  CHECK(turns.back().first_token_ms == 2);
  const std::string text = agent::perfText(f.temp.store());
  CHECK(text.rfind("Last 10 turns", 0) == 0);
  CHECK(std::count(text.begin(), text.end(), '\n') == 10);
}

TEST_CASE("a turn's cost is recorded once, with its reply", "[agent][stats]") {
  AgentFixture f;
  f.provider.reply("first");
  REQUIRE(f.run("one").status.isOk());
  f.provider.reply("second");
  REQUIRE(f.run("two").status.isOk());
  sqlite3* db = nullptr;
  REQUIRE(sqlite3_open(f.temp.store().path().c_str(), &db) == SQLITE_OK);
  sqlite3_stmt* count = nullptr;
  REQUIRE(sqlite3_prepare_v2(db, "SELECT COUNT(*), MIN(outcome), MAX(outcome) FROM turns", -1,
                             &count, nullptr) == SQLITE_OK);
  REQUIRE(sqlite3_step(count) == SQLITE_ROW);
  CHECK(sqlite3_column_int(count, 0) == 2);
  CHECK(std::string(reinterpret_cast<const char*>(sqlite3_column_text(count, 1))) == "ok");
  CHECK(std::string(reinterpret_cast<const char*>(sqlite3_column_text(count, 2))) == "ok");
  sqlite3_finalize(count);
  sqlite3_close(db);
}
