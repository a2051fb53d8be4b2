// Tool safety through the real binary: a call cut short by a crash is closed at the next
// start and never replayed (DESIGN 4 step 7); manifest policies refuse calls.
#include <signal.h>
#include <sqlite3.h>

#include <catch2/catch.hpp>
#include <cstdlib>
#include <filesystem>
#include <thread>

#include "e2e/support/gantry_process.h"
#include "openai/fake_openai_server.h"
#include "peers/peers.h"

using gantry::e2e::GantryProcess;
using gantry::e2e::Workspace;
using gantry::testing::FakeOpenAiServer;
using namespace std::chrono_literals;

namespace {

/// The status of every tool_calls row, oldest first (read while gantry may be running).
std::vector<std::string> toolCallStatuses(const std::string& db_path) {
  sqlite3* db = nullptr;
  std::vector<std::string> statuses;
  if (sqlite3_open_v2(db_path.c_str(), &db, SQLITE_OPEN_READONLY, nullptr) == SQLITE_OK) {
    sqlite3_busy_timeout(db, 2000);
    sqlite3_stmt* stmt = nullptr;
    if (sqlite3_prepare_v2(db, "SELECT name || ':' || status FROM tool_calls ORDER BY id", -1,
                           &stmt, nullptr) == SQLITE_OK) {
      while (sqlite3_step(stmt) == SQLITE_ROW) {
        statuses.emplace_back(reinterpret_cast<const char*>(sqlite3_column_text(stmt, 0)));
      }
    }
    sqlite3_finalize(stmt);
  }
  sqlite3_close(db);
  return statuses;
}

}  // namespace

TEST_CASE("a tool call running when the process is killed is closed, not replayed", "[e2e]") {
  FakeOpenAiServer llm;
  llm.addReply(R"({"tool_calls":[{"id":"c1","name":"slow__hang","arguments":"{}"}]})");
  Workspace ws("crash");
  ws.write("mcp.toml", "[[server]]\nname = \"slow\"\ncommand = \"" GANTRY_BUILD_DIR
                       "/tests/fakes/mcp/fake_mcp_server\"\n");
  auto env = gantry::e2e::stdioEnv(ws, llm.port());
  std::string db = ws.data() + "/gantry.db";
  {
    GantryProcess first(env);
    first.write("run the slow tool\n");
    std::vector<std::string> rows;
    for (int i = 0; i < 1000 && rows.empty(); ++i) {
      std::this_thread::sleep_for(20ms);
      rows = toolCallStatuses(db);
    }
    REQUIRE(rows == std::vector<std::string>{"slow__hang:running"});
    first.signal(SIGKILL);
    first.wait(10s);
  }
  llm.addReply(R"({"content":"back after the restart"})");
  GantryProcess second(env);
  second.write("hello again\n");
  second.closeInput();
  CHECK(second.wait(60s) == 0);
  INFO(second.err());
  CHECK(second.err().find("tool_call_closed_after_crash") != std::string::npos);
  CHECK(second.out().find("back after the restart") != std::string::npos);
  CHECK(toolCallStatuses(db) == std::vector<std::string>{"slow__hang:error"});
  // The model sees the synthetic result; nothing ran the tool again.
  CHECK(llm.requests().back().find("interrupted by a restart, not re-run") != std::string::npos);
  // A pipe's input does not survive a restart: the cut turn is closed, not continued, and
  // the new run answers only its own line.
  CHECK(llm.requests().size() == 2);
  CHECK(second.err().find(R"("msg":"tool_call","name":"slow__hang")") == std::string::npos);
}

TEST_CASE("a denied tool is refused and an ask tool waits for the owner, unrun", "[e2e]") {
  FakeOpenAiServer llm;
  llm.addReply(
      R"({"tool_calls":[{"id":"c1","name":"fake__echo","arguments":"{\"message\":\"hi\"}"},)"
      R"({"id":"c2","name":"fake__add_tool","arguments":"{}"}]})");
  llm.addReply(R"({"content":"never asked for"})");
  Workspace ws("policy");
  ws.write("mcp.toml", "[[server]]\nname = \"fake\"\ncommand = \"" GANTRY_BUILD_DIR
                       "/tests/fakes/mcp/fake_mcp_server\"\n"
                       "tool_policy = { echo = \"deny\", add_tool = \"ask\" }\n");
  auto env = gantry::e2e::stdioEnv(ws, llm.port());
  env["APPROVAL_WAIT_SECONDS"] = "0";  // parks at once: nobody answers a pipe
  GantryProcess g(env);
  g.write("try the tools\n");
  g.closeInput();
  CHECK(g.wait(60s) == 0);
  INFO(g.err());
  CHECK(llm.requests().size() == 1);  // the turn ends waiting; no model call could do more
  CHECK(g.out().find("Approval needed to run fake__add_tool with {}") != std::string::npos);
  CHECK(g.out().find("Waiting for your approval to run fake__add_tool: /approve ") !=
        std::string::npos);
  CHECK(g.out().find("never asked for") == std::string::npos);
}

TEST_CASE("a full turn reads a file through the real server-filesystem, name repaired",
          "[e2e][peers]") {
  GANTRY_REQUIRE_PEER(script, "server-filesystem");
  Workspace ws("filesystem");
  ws.write("files/note.txt", "the secret word is gantry\n");
  std::string path = ws.path() + "/files/note.txt";
  ws.write("mcp.toml", "[[server]]\nname = \"fs\"\ncommand = \"" + gantry::testing::peers::node() +
                           "\"\nargs = [\"" + script + "\", \"" + ws.path() +
                           "/files\"]\nsandbox = { read = [\"" + gantry::testing::peers::dir() +
                           "\", \"" + ws.path() + "/files\"] }\n");
  FakeOpenAiServer llm;
  // The model forgets the server prefix: read_text_file must be repaired to fs__read_text_file.
  llm.addReply(R"({"tool_calls":[{"id":"c1","name":"read_text_file","arguments":"{\"path\":\")" +
               path + R"(\"}"}]})");
  llm.addReply(R"({"content":"The word is gantry."})");
  auto env = gantry::e2e::stdioEnv(ws, llm.port());
  env["STDIO_FORMAT"] = "jsonl";
  auto r = gantry::e2e::runGantry(env, "{\"text\": \"what is the secret word?\"}\n", {"run"}, 120s);
  INFO(r.err);
  CHECK(r.code == 0);
  CHECK(r.out.find(R"("type":"tool","name":"fs__read_text_file","ok":true)") != std::string::npos);
  CHECK(r.out.find("The word is gantry.") != std::string::npos);
  REQUIRE(llm.requests().size() == 2);
  CHECK(llm.requests()[1].find("the secret word is gantry") != std::string::npos);
  CHECK(r.err.find("tool_name_repaired") != std::string::npos);
}

TEST_CASE("a full turn reads a file through the bundled gantry-workspace and is refused outside",
          "[e2e]") {
  Workspace ws("bundled-workspace");
  ws.write("files/note.txt", "the bundled word is confined\n");
  ws.write("secret.txt", "outside the root\n");
  ws.write("mcp.toml", "[[server]]\nname = \"ws\"\ncommand = \"" GANTRY_BUILD_DIR
                       "/gantry-workspace\"\nargs = [\"--root\", \"" +
                           ws.path() + "/files\"]\nsandbox = { read = [\"" + ws.path() +
                           "/files\"] }\n");
  FakeOpenAiServer llm;
  llm.addReply(
      R"({"tool_calls":[{"id":"c1","name":"ws__read_file","arguments":"{\"path\":\"note.txt\"}"},)"
      R"({"id":"c2","name":"ws__read_file","arguments":"{\"path\":\"../secret.txt\"}"}]})");
  llm.addReply(R"({"content":"The word is confined."})");
  auto env = gantry::e2e::stdioEnv(ws, llm.port());
  env["STDIO_FORMAT"] = "jsonl";
  auto r =
      gantry::e2e::runGantry(env, "{\"text\": \"what is the bundled word?\"}\n", {"run"}, 120s);
  INFO(r.err);
  CHECK(r.code == 0);
  CHECK(r.out.find("The word is confined.") != std::string::npos);
  REQUIRE(llm.requests().size() == 2);
  CHECK(llm.requests()[1].find("the bundled word is confined") != std::string::npos);
  CHECK(llm.requests()[1].find("'..' leaves the workspace root") != std::string::npos);
  CHECK(llm.requests()[1].find("outside the root") == std::string::npos);
}
