#include "agent/prompt_budget.h"

#include <catch2/catch.hpp>

#include "unit/agent/agent_fixture.h"
#include "unit/support/chat_message.h"

using namespace gantry;
using namespace gantry::agent;

using gantry::testing::message;

namespace {

const BudgetRow& row(const std::vector<BudgetRow>& rows, const std::string& part) {
  for (const auto& r : rows) {
    if (r.part == part) return r;
  }
  FAIL("no row " << part);
  throw std::logic_error("unreachable");
}

}  // namespace

TEST_CASE("the prompt budget estimates each part at chars/4 and sums them", "[budget]") {
  StandingPrompt prompt;
  prompt.persona = std::string(400, 'p');
  prompt.history = historySize({message(Role::kUser, std::string(40, 'u')),
                                message(Role::kAssistant, std::string(80, 'a'))});
  prompt.schemas[""] = schemaSize({{"memory_store", std::string(88, 'd'), "{}"}});  // 102 chars
  prompt.schemas["garmin"] = schemaSize({{"garmin__a", "", "{}"}, {"garmin__b", "", "{}"}});
  auto rows = promptBudget(prompt);
  CHECK(row(rows, "persona").est_tokens == 100);
  CHECK(row(rows, "schemas built-in").est_tokens == 26);
  CHECK(row(rows, "schemas built-in").detail == "1 tool");
  CHECK(row(rows, "schemas garmin").detail == "2 tools");
  CHECK(row(rows, "history").est_tokens == 30);
  CHECK(row(rows, "history").detail == "2 messages");
  CHECK(row(rows, "summary").est_tokens == 0);
  std::size_t sum = 0;
  for (std::size_t i = 0; i + 1 < rows.size(); ++i) sum += rows[i].est_tokens;
  CHECK(rows.back().part == "total");
  CHECK(rows.back().est_tokens == sum);
}

TEST_CASE("the /tokens text labels estimates and shows the reported count", "[budget]") {
  auto rows = promptBudget({});
  auto text = budgetText(rows, 1234);
  CHECK_THAT(text, Catch::Contains("estimates, chars/4"));
  CHECK_THAT(text, Catch::Contains("1234 prompt tokens reported by the endpoint"));
  CHECK_THAT(budgetText(rows, 0), Catch::Contains("no prompt tokens reported"));
}

TEST_CASE("the tokens rows are tab-separated, one per line", "[budget]") {
  auto tsv = budgetTsv(promptBudget({}), 7);
  CHECK_THAT(tsv, Catch::StartsWith("persona\t0\t\n"));
  CHECK_THAT(tsv, Catch::EndsWith("reported\t7\tlast turn, all calls\n"));
}

TEST_CASE("the standing prompt holds the chat's persona, published schemas and history",
          "[budget]") {
  testing::AgentFixture f;
  f.provider.reply("hello back");
  REQUIRE(f.run("hello").status.isOk());
  auto prompt = f.agent().standingPrompt("chat");
  CHECK(prompt.persona == "You are a test.");
  CHECK(prompt.history.count == 2);
  REQUIRE(prompt.schemas.count("") == 1);
  CHECK(prompt.schemas.at("").count == 4);  // every fixture tool is a built-in here
}

TEST_CASE("the standing prompt's schema sizes follow a source whose tools changed", "[budget]") {
  testing::AgentFixture f;
  REQUIRE(f.agent().standingPrompt("chat").schemas.at("").count == 4);
  f.tools.setNames({"lookup"});  // a server republishing fewer tools
  auto prompt = f.agent().standingPrompt("chat");
  REQUIRE(prompt.schemas.count("") == 1);
  CHECK(prompt.schemas.at("").count == 3);
}

TEST_CASE("the tokens rows tell how much of the last turn a prompt cache could keep", "[budget]") {
  testing::AgentFixture f;
  f.provider.reply("hello back");
  REQUIRE(f.run("hello").status.isOk());
  auto first = f.agent().standingPrompt("chat");
  CHECK(first.last_turn_sent > 0);
  CHECK(first.last_turn_cached < first.last_turn_sent / 2);  // a new chat: the schemas at most
  f.provider.reply("again");
  REQUIRE(f.run("and again").status.isOk());
  auto second = f.agent().standingPrompt("chat");
  // All but the new message and the reply before it repeat the first request.
  CHECK(second.last_turn_cached >= first.last_turn_sent);
  CHECK(second.last_turn_cached < second.last_turn_sent);
  const auto rows = promptBudget(second);
  CHECK(rows.back().part == "cache could keep, last turn");
  CHECK(rows.back().est_tokens == second.last_turn_cached);
}

TEST_CASE("what a cache could keep ends at the first part that changed", "[budget]") {
  std::vector<ChatMessage> history = {message(Role::kUser, "one"),
                                      message(Role::kAssistant, std::string(40, 'a'))};
  ChatRequest request;
  request.messages = &history;
  const PromptPrint before = promptPrint(request);
  history[0].content = "changed";
  CHECK(keptTokens(before, promptPrint(request)) == 0);  // the empty tool list alone
  history[0].content = "one";
  history.push_back(message(Role::kUser, "two"));
  CHECK(keptTokens(before, promptPrint(request)) == printTokens(before));
}
