// Lazy tool schemas through the real binary, the fake model and the fake MCP server: the
// first request offers the built-ins only, mcp_enable appends the server's tools without
// touching what was published before, and /tokens breaks the standing prompt down.
#include <catch2/catch.hpp>
#include <thread>

#include "e2e/support/gantry_process.h"
#include "e2e/support/request_json.h"
#include "openai/fake_openai_server.h"

using gantry::e2e::GantryProcess;
using gantry::e2e::Workspace;
using gantry::testing::FakeOpenAiServer;
using namespace std::chrono_literals;

namespace {

bool waitFor(const GantryProcess& g, const std::string& text) {
  for (int i = 0; i < 1500; ++i) {
    if (g.out().find(text) != std::string::npos) return true;
    std::this_thread::sleep_for(20ms);
  }
  return false;
}

}  // namespace

TEST_CASE("mcp_enable appends a server's tools after the published ones, prefix intact", "[e2e]") {
  FakeOpenAiServer llm;
  llm.addReply(R"({"tool_calls":[{"id":"c1","name":"mcp_enable",)"
               R"("arguments":"{\"server\":\"fake\"}"}]})");
  llm.addReply(R"({"tool_calls":[{"id":"c2","name":"fake__echo",)"
               R"("arguments":"{\"message\":\"hi\"}"}]})");
  llm.addReply(R"({"content":"echoed it"})");
  Workspace ws("lazy");
  ws.write("mcp.toml", "[[server]]\nname = \"fake\"\ncommand = \"" GANTRY_BUILD_DIR
                       "/tests/fakes/mcp/fake_mcp_server\"\n"
                       "description = \"a fake server for tests\"\n");
  auto env = gantry::e2e::stdioEnv(ws, llm.port());
  env["TOOL_PUBLISH"] = "lazy";
  GantryProcess g(env);
  g.write("echo hi with the fake server\n");
  REQUIRE(waitFor(g, "echoed it"));
  g.write("/tokens\n");
  REQUIRE(waitFor(g, "total: ~"));
  g.closeInput();
  CHECK(g.wait(60s) == 0);
  INFO(g.err());
  auto requests = llm.requests();
  REQUIRE(requests.size() == 3);
  auto first = gantry::e2e::jsonArray(requests[0], "tools");
  auto second = gantry::e2e::jsonArray(requests[1], "tools");
  REQUIRE(!first.empty());
  CHECK(first.find("\"mcp_enable\"") != std::string::npos);
  CHECK(first.find("fake__echo") == std::string::npos);
  CHECK(second.find("fake__echo") != std::string::npos);
  // Everything published before is kept byte for byte; the server's tools only follow it.
  CHECK(second.compare(0, first.size() - 1, first, 0, first.size() - 1) == 0);
  CHECK(gantry::e2e::jsonArray(requests[2], "tools") == second);
  CHECK(requests[0].find("- fake: ") != std::string::npos);
  CHECK(requests[0].find("a fake server for tests") != std::string::npos);
  CHECK(g.err().find("\"msg\":\"tool_server_enabled\"") != std::string::npos);
  CHECK(g.out().find("Standing prompt of this chat (estimates, chars/4):") != std::string::npos);
  CHECK(g.out().find("schemas fake: ~") != std::string::npos);
  CHECK(g.out().find("history: ~") != std::string::npos);
}
