// The stats through the real binary: a turn that calls an MCP tool by a name the host has to
// repair, then /perf, /toolstats, /memstats, /tokens, /tools and /help in a later run, and the
// CLI forms (`gantry tokens|perf|toolstats|memstats`) reading the same database.
#include <catch2/catch.hpp>
#include <sstream>

#include "e2e/support/gantry_process.h"
#include "openai/fake_openai_server.h"

using gantry::e2e::runGantry;
using gantry::e2e::Workspace;
using gantry::testing::FakeOpenAiServer;

namespace {

std::vector<std::string> lines(const std::string& text) {
  std::vector<std::string> out;
  std::istringstream in(text);
  for (std::string line; std::getline(in, line);) out.push_back(line);
  return out;
}

std::vector<std::string> fields(const std::string& line) {
  std::vector<std::string> out;
  std::istringstream in(line);
  for (std::string field; std::getline(in, field, '\t');) out.push_back(field);
  return out;
}

/// A workspace whose one chat had one turn: `echo` (repaired to fake__echo), then a reply.
struct OneTurn {
  FakeOpenAiServer llm;
  Workspace ws{"stats"};
  gantry::e2e::Env env;
  OneTurn() {
    llm.addReply(R"({"tool_calls":[{"id":"c1","name":"echo","arguments":"{\"message\":\"hi\"}"}],)"
                 R"("usage":{"prompt_tokens":300,"completion_tokens":9}})");
    llm.addReply(R"({"content":"echoed it","usage":{"prompt_tokens":320,"completion_tokens":4}})");
    ws.write("mcp.toml", "[[server]]\nname = \"fake\"\ncommand = \"" GANTRY_BUILD_DIR
                         "/tests/fakes/mcp/fake_mcp_server\"\n");
    env = gantry::e2e::stdioEnv(ws, llm.port());
    env["TOOL_PUBLISH"] = "eager";
    auto run = runGantry(env, "echo hi\n");
    INFO(run.err);
    REQUIRE(run.code == 0);
    REQUIRE(run.out.find("echoed it") != std::string::npos);
  }
};

}  // namespace

TEST_CASE("the stats slash commands answer from the record of earlier runs", "[e2e]") {
  OneTurn t;
  auto r = runGantry(t.env, "/perf\n/toolstats\n/memstats\n/tokens\n/tools\n/help\n");
  INFO(r.out);
  INFO(r.err);
  CHECK(r.code == 0);
  CHECK(r.out.find("Last 1 turns, newest first") != std::string::npos);
  CHECK(r.out.find(" ok: model ") != std::string::npos);
  CHECK(r.out.find("2 rounds, 620 prompt tokens") != std::string::npos);
  CHECK(r.out.find("- fake__echo: 1 calls, 1 ok, 0 errors") != std::string::npos);
  CHECK(r.out.find("name_repaired 1") != std::string::npos);
  CHECK(r.out.find("Memory rows by kind: fact 0") != std::string::npos);
  CHECK(r.out.find("database: ") != std::string::npos);
  CHECK(r.out.find("schemas fake: ~") != std::string::npos);
  CHECK(r.out.find(" published of ") != std::string::npos);
  for (const char* command : {"/new", "/cancel", "/status", "/tools", "/tokens", "/perf",
                              "/toolstats", "/memstats", "/approve ID", "/deny ID", "/help"}) {
    CHECK(r.out.find(std::string("\n") + command + " — ") != std::string::npos);
  }
  CHECK(t.llm.requests().size() == 2);  // no command reached the model
}

TEST_CASE("gantry tokens, perf, toolstats and memstats print the same facts tab-separated",
          "[e2e]") {
  OneTurn t;
  auto perf = runGantry(t.env, "", {"perf"});
  INFO(perf.err);
  REQUIRE(perf.code == 0);
  auto perf_rows = lines(perf.out);
  REQUIRE(perf_rows.size() == 1);
  auto turn = fields(perf_rows[0]);
  REQUIRE(turn.size() == 10);
  CHECK(turn[2] == "ok");
  CHECK(turn[7] == "2");    // rounds
  CHECK(turn[8] == "1");    // tool calls
  CHECK(turn[9] == "620");  // prompt tokens as reported

  auto stats = runGantry(t.env, "", {"toolstats"});
  REQUIRE(stats.code == 0);
  auto stat_rows = lines(stats.out);
  REQUIRE(!stat_rows.empty());
  auto echo = fields(stat_rows[0]);
  REQUIRE(echo.size() == 8);
  CHECK(echo[0] == "tool");
  CHECK(echo[1] == "fake__echo");
  CHECK(echo[2] == "1");
  CHECK(stats.out.find("repair\tname_repaired\t1\n") != std::string::npos);
  CHECK(stats.out.find("repair\tunknown_tool\t0\n") != std::string::npos);

  auto mem = runGantry(t.env, "", {"memstats"});
  REQUIRE(mem.code == 0);
  CHECK(mem.out.find("kind\tfact\t0\n") != std::string::npos);
  CHECK(mem.out.find("database\tbytes\t") != std::string::npos);

  auto tokens = runGantry(t.env, "", {"tokens"});
  REQUIRE(tokens.code == 0);
  CHECK(tokens.out.find("\nschemas fake\t") != std::string::npos);
  CHECK(tokens.out.find("\nreported\t620\t") != std::string::npos);
  for (const auto& row : lines(tokens.out)) CHECK(fields(row).size() >= 2);

  CHECK(runGantry(t.env, "", {"perf", "extra"}).code == 2);
  auto help = runGantry(t.env, "", {"toolstats", "--help"});
  CHECK(help.code == 0);
  CHECK(help.out.find("usage: gantry toolstats") != std::string::npos);
}
