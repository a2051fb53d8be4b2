// /toolstats and `gantry toolstats` over recorded calls and repairs.
#include "tools/tool_stats.h"

#include <catch2/catch.hpp>
#include <sstream>

#include "store/message_repo.h"
#include "store/stats_repo.h"
#include "unit/memory/temp_store.h"

using namespace gantry;

namespace {

/// Records one call of tool (model_name as the model wrote it) with its outcome.
void recordCall(store::MessageRepo& messages, int64_t session, const std::string& model_name,
                const std::string& tool, bool ok, int64_t ms, int64_t chars) {
  ChatMessage assistant;
  assistant.role = Role::kAssistant;
  assistant.tool_calls = {{"c", model_name, "{}", {}}};
  auto rows = messages.appendCalls(session, assistant).value();
  ChatMessage result{Role::kTool, "r", {}, {}, "c", model_name, {}};
  REQUIRE(messages.appendResult(session, rows[0], ok, {tool, ms, chars}, result).isOk());
}

}  // namespace

TEST_CASE("tool stats sum calls per tool as it ran, with the repairs of every kind",
          "[tools][stats]") {
  testing::TempStore temp;
  store::MessageRepo messages(temp.store());
  auto session = messages.session("c").value();
  recordCall(messages, session, "web__fetch", "web__fetch", true, 10, 100);
  recordCall(messages, session, "functions.fetch", "web__fetch", false, 30, 50);
  recordCall(messages, session, "lookup", "lookup", true, 5, 7);
  recordCall(messages, session, "nosuch", "", false, 0, 40);
  store::TurnCost turn;
  turn.session_id = session;
  turn.outcome = "ok";
  turn.repairs = {{"name_repaired", "web__fetch"}, {"unknown_tool", "nosuch"}};
  REQUIRE(messages.recordTurn(turn).isOk());

  std::ostringstream out, err;
  REQUIRE(tools::toolStatsCommand(temp.store(), {}, out, err) == 0);
  CHECK(out.str() ==
        "tool\tweb__fetch\t2\t1\t1\t20\t30\t150\n"
        "tool\tlookup\t1\t1\t0\t5\t5\t7\n"
        "repair\tname_repaired\t1\n"
        "repair\tserver_enabled_by_call\t0\n"
        "repair\tunknown_tool\t1\n"
        "repair\tconstrained_retry\t0\n"
        "repair\tprinted_call\t0\n"
        "repair\tthink_promoted\t0\n");
  CHECK(tools::toolStatsCommand(temp.store(), {"x"}, out, err) == 2);
  const std::string text = tools::toolStatsText(temp.store());
  CHECK(
      text.find("- web__fetch: 2 calls, 1 ok, 1 errors, mean 20 ms, max 30 ms, 150 result chars") !=
      std::string::npos);
  CHECK(text.find("name_repaired 1, server_enabled_by_call 0, unknown_tool 1") !=
        std::string::npos);
}

TEST_CASE("tool stats of an empty record say so and still list the repair kinds",
          "[tools][stats]") {
  testing::TempStore temp;
  const std::string text = tools::toolStatsText(temp.store());
  CHECK(text.rfind("No tool calls yet.", 0) == 0);
  CHECK(text.find("think_promoted 0") != std::string::npos);
}
