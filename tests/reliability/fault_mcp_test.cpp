// The fault matrix, MCP servers: what a stdio tool server can do wrong, through the real
// binary on the stdio channel against the misbehaving fake_mcp_server. Each turn calls the
// faulty tool, the model reads the tool error and answers; a second turn calls echo on the
// same server, which must still (or again) work.
#include <catch2/catch.hpp>

#include "openai/fake_openai_server.h"
#include "reliability/fault_support.h"

using gantry::e2e::count;
using gantry::e2e::Env;
using gantry::e2e::runGantry;
using gantry::e2e::Workspace;
using gantry::faults::toolCallLine;
using gantry::testing::FakeOpenAiServer;
using namespace std::chrono_literals;

namespace {

struct Outcome {
  gantry::e2e::RunResult run;
  std::vector<std::string> requests;
};

/// Two turns: the first calls tool (then answers "first done"), the second calls
/// fake__echo (then answers "second done").
Outcome twoTurns(const std::string& name, const std::string& tool, const std::string& args,
                 const Env& extra = {}) {
  FakeOpenAiServer llm;
  llm.addReply(toolCallLine(tool, args));
  llm.addReply(R"({"content":"first done"})");
  llm.addReply(toolCallLine("fake__echo", R"({"text":"still serving"})", "c2"));
  llm.addReply(R"({"content":"second done"})");
  Workspace ws(name);
  ws.write("mcp.toml",
           gantry::faults::fakeMcpManifest(extra.count("args") ? extra.at("args") : ""));
  Env env = gantry::e2e::stdioEnv(ws, llm.port());
  env["MEMORY_ENABLED"] = "false";
  for (const auto& [key, value] : extra) {
    if (key != "args") env[key] = value;
  }
  Outcome outcome{runGantry(env, "one\ntwo\n", {"run"}, 90s), llm.requests()};
  std::string why;
  const bool sound = gantry::faults::recordSound(ws, &why);
  INFO(why);
  CHECK(sound);
  return outcome;
}

/// The tool message the model got for the first turn's call.
std::string firstToolResult(const Outcome& outcome) {
  if (outcome.requests.size() < 2) return "";
  const std::string& request = outcome.requests[1];
  auto at = request.find(R"("role":"tool")");
  if (at == std::string::npos) return "";
  auto end = request.find(R"("})", at);
  return request.substr(at, end == std::string::npos ? std::string::npos : end - at);
}

void checkSurvived(const Outcome& outcome) {
  INFO(outcome.run.err.substr(0, 6000));
  CHECK(outcome.run.code == 0);
  CHECK(count(outcome.run.out, "first done") == 1);
  CHECK(count(outcome.run.out, "second done") == 1);
  REQUIRE(outcome.requests.size() == 4);
  CHECK(outcome.requests[3].find("still serving") != std::string::npos);
}

}  // namespace

TEST_CASE("an MCP server crashing mid-call gives the model an error and is restarted",
          "[faults][mcp]") {
  auto outcome = twoTurns("fault-mcp-crash", "fake__crash", "{}");
  checkSurvived(outcome);
  INFO(firstToolResult(outcome));
  CHECK(firstToolResult(outcome).find("the server stopped while the call was running") !=
        std::string::npos);
}

TEST_CASE("a hanging MCP call ends at TOOL_TIMEOUT_SECONDS and the server keeps serving",
          "[faults][mcp]") {
  auto outcome = twoTurns("fault-mcp-hang", "fake__hang", "{}", {{"TOOL_TIMEOUT_SECONDS", "1"}});
  checkSurvived(outcome);
  INFO(firstToolResult(outcome));
  CHECK(firstToolResult(outcome).find("TOOL_TIMEOUT_SECONDS") != std::string::npos);
}

TEST_CASE("a 10 MB MCP result fails that call clearly and the server keeps serving",
          "[faults][mcp]") {
  auto outcome = twoTurns("fault-mcp-big", "fake__big", "{}");
  checkSurvived(outcome);
  INFO(firstToolResult(outcome));
  CHECK(firstToolResult(outcome).size() < 400);
  CHECK(firstToolResult(outcome).find("over the 4 MB limit") != std::string::npos);
}

TEST_CASE("garbage lines from an MCP server are skipped and the answer still arrives",
          "[faults][mcp]") {
  auto outcome = twoTurns("fault-mcp-garbage", "fake__garbage", "{}");
  checkSurvived(outcome);
  CHECK(firstToolResult(outcome).find("after garbage") != std::string::npos);
}

TEST_CASE("a malformed answer to a call fails that call at once, not at the tool timeout",
          "[faults][mcp][attack]") {
  auto outcome = twoTurns("fault-mcp-malformed", "fake__garbage", R"({"answer":"malformed"})");
  checkSurvived(outcome);
  INFO(firstToolResult(outcome));
  CHECK(firstToolResult(outcome).find("answered this call with malformed JSON") !=
        std::string::npos);
  CHECK(firstToolResult(outcome).find("TOOL_TIMEOUT_SECONDS") == std::string::npos);
}

TEST_CASE("an MCP server flooding notifications does not stall the call or the turn",
          "[faults][mcp]") {
  auto outcome =
      twoTurns("fault-mcp-flood", "fake__notify_flood", "{}", {{"args", R"("--notify-flood")"}});
  checkSurvived(outcome);
  CHECK(firstToolResult(outcome).find("flooded with notifications") != std::string::npos);
}

TEST_CASE("an MCP server that never answers initialize does not block the instance",
          "[faults][mcp]") {
  FakeOpenAiServer llm;
  Workspace ws("fault-mcp-init");
  ws.write("mcp.toml", gantry::faults::fakeMcpManifest(R"("--no-initialize")"));
  Env env = gantry::e2e::stdioEnv(ws, llm.port());
  env["MEMORY_ENABLED"] = "false";
  auto r = runGantry(env, "anyone there\n", {"run"}, 90s);
  INFO(r.err.substr(0, 6000));
  CHECK(r.code == 0);
  CHECK(count(r.out, "echo: anyone there") == 1);
  CHECK(r.err.find("mcp_server_slow") != std::string::npos);
  // The model was not offered tools of a server that never started.
  REQUIRE(llm.requests().size() == 1);
  CHECK(llm.requests()[0].find("fake__echo") == std::string::npos);
}
