// Tool calls through the real binary, its MCP client and the fake MCP server: a call the host
// cannot run as written (DESIGN 4.1) and what a result shows the model (DESIGN 4.2).
#include <catch2/catch.hpp>
#include <string>

#include "e2e/support/gantry_process.h"
#include "openai/fake_openai_server.h"

using gantry::e2e::Env;
using gantry::e2e::runGantry;
using gantry::e2e::Workspace;
using gantry::testing::FakeOpenAiServer;

namespace {

const std::string kFakeServer = GANTRY_BUILD_DIR "/tests/fakes/mcp/fake_mcp_server";

std::string serverEntry(const std::string& name, const std::string& args = "") {
  return "[[server]]\nname = \"" + name + "\"\ncommand = \"" + kFakeServer + "\"\nargs = [" + args +
         "]\n";
}

Env jsonlEnv(const Workspace& ws, int llm_port) {
  Env env = gantry::e2e::stdioEnv(ws, llm_port);
  env["STDIO_FORMAT"] = "jsonl";
  return env;
}

std::string callReply(const std::string& id, const std::string& name,
                      const std::string& escaped_args) {
  return R"({"tool_calls":[{"id":")" + id + R"(","name":")" + name + R"(","arguments":")" +
         escaped_args + R"("}]})";
}

}  // namespace

TEST_CASE("a call to a tool of a server that is down is told so and no other tool runs", "[e2e]") {
  Workspace ws("server-down");
  ws.write("mcp.toml", serverEntry("everything", "\"--exit-at-start\"") + serverEntry("fetch"));
  FakeOpenAiServer llm;
  llm.addReply(callReply("c1", "everything__echo", R"({\"text\":\"hi\"})"));
  llm.addReply(R"({"content":"The everything server is down right now."})");
  auto r = runGantry(jsonlEnv(ws, llm.port()), "{\"text\": \"echo hi\"}\n");
  INFO(r.err);
  CHECK(r.code == 0);
  REQUIRE(llm.requests().size() == 2);
  const std::string retry = llm.requests()[1];
  CHECK(retry.find("error: server everything is down since ") != std::string::npos);
  CHECK(retry.find("; its tools are unavailable for now.") != std::string::npos);
  CHECK(retry.find("Did you mean") == std::string::npos);
  CHECK(retry.find("\"response_format\"") == std::string::npos);
  CHECK(r.out.find(R"("name":"fetch__)") == std::string::npos);
  CHECK(r.out.find("The everything server is down right now.") != std::string::npos);
}

TEST_CASE("a single underscore between server and tool is repaired and the arguments kept",
          "[e2e]") {
  Workspace ws("one-underscore");
  ws.write("mcp.toml", serverEntry("fake"));
  FakeOpenAiServer llm;
  llm.addReply(callReply("c1", "fake_echo", R"({\"text\":\"kept as written\"})"));
  llm.addReply(R"({"content":"echoed"})");
  auto r = runGantry(jsonlEnv(ws, llm.port()), "{\"text\": \"echo it\"}\n");
  INFO(r.err);
  CHECK(r.code == 0);
  CHECK(r.out.find(R"("type":"tool","name":"fake__echo","ok":true)") != std::string::npos);
  REQUIRE(llm.requests().size() == 2);
  CHECK(
      llm.requests()[1].find(R"("role":"tool","tool_call_id":"c1","content":"kept as written")") !=
      std::string::npos);
  CHECK(llm.requests()[1].find("\"response_format\"") == std::string::npos);
  CHECK(r.err.find("tool_name_repaired") != std::string::npos);
}

TEST_CASE("an image a tool returns reaches the model as an image after the results", "[e2e]") {
  Workspace ws("tool-image");
  ws.write("mcp.toml", serverEntry("fake"));
  FakeOpenAiServer llm;
  llm.addReply(callReply("c1", "fake__image", "{}"));
  llm.addReply(R"({"content":"a very small picture"})");
  auto r = runGantry(jsonlEnv(ws, llm.port()), "{\"text\": \"show me the picture\"}\n");
  INFO(r.err);
  CHECK(r.code == 0);
  REQUIRE(llm.requests().size() == 2);
  CHECK(llm.requests()[1].find(
            R"({"role":"tool","tool_call_id":"c1","content":"[image image/png, 6 bytes]"},)"
            R"({"role":"user","content":[{"type":"text","text":"[images returned by fake__image, )"
            R"(call c1]"},{"type":"image_url","image_url":{"url":"data:image/png;base64,)"
            R"(AAAAAAAA"}}]})") != std::string::npos);
  CHECK(r.out.find("a very small picture") != std::string::npos);
}

TEST_CASE("an old tool result collapses to a line that says what it is, a short one stays whole",
          "[e2e]") {
  Workspace ws("collapse");
  ws.write("mcp.toml", serverEntry("fake"));
  FakeOpenAiServer llm;
  const std::string long_text(60, 'a');
  llm.addReply(callReply("c1", "fake__echo", R"({\"text\":\")" + long_text + R"(\"})"));
  llm.addReply(callReply("c2", "fake__echo", R"({\"text\":\"short\"})"));
  for (const char* id : {"c3", "c4", "c5", "c6"}) {
    llm.addReply(callReply(id, "fake__echo", R"({\"text\":\"again\"})"));
  }
  llm.addReply(R"({"content":"done echoing"})");
  // Results collapse only once the turn's own context passes the bounds (DESIGN 4.2).
  auto env = jsonlEnv(ws, llm.port());
  env["HISTORY_MAX_MESSAGES"] = "8";
  auto r = runGantry(env, "{\"text\": \"echo a lot\"}\n");
  INFO(r.err);
  CHECK(r.code == 0);
  REQUIRE(llm.requests().size() >= 7);  // and the fold the turn made due
  const std::string last = llm.requests()[6];
  CHECK(last.find(R"("tool_call_id":"c1","content":"[tool fake__echo: 60 chars, collapsed]")") !=
        std::string::npos);
  CHECK(last.find(R"("tool_call_id":"c2","content":"short")") != std::string::npos);
}
