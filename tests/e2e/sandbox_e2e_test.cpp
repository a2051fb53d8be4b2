// End to end: stdio MCP servers in their Landlock sandbox, through the real binary. A hostile
// server tries every way at the host's secrets, record and process while the vault holds a
// real secret and an `ask` call is parked; the same attempts without the sandbox show they
// are real.

#include <sqlite3.h>
#include <sys/stat.h>

#include <catch2/catch.hpp>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "e2e/support/gantry_process.h"
#include "openai/fake_openai_server.h"

using gantry::e2e::Env;
using gantry::e2e::runGantry;
using gantry::e2e::Workspace;
using gantry::testing::FakeOpenAiServer;
using namespace std::chrono_literals;

namespace {

constexpr const char* kLlmKey = "llm-key-in-the-vault-93c1";
constexpr const char* kFakeServer = GANTRY_BUILD_DIR "/tests/fakes/mcp/fake_mcp_server";

const char* const kAttacks[] = {
    "proc_environ", "proc_mem",           "proc_fd_list",    "proc_fd_3",
    "ptrace",       "key_file",           "vault",           "db_read",
    "db_write",     "db_wal_write",       "data_dir_create", "data_dir_list",
    "persona",      "other_server_state", "signal",          "inherited_fd"};

std::string singleValue(const std::string& db_path, const std::string& sql) {
  sqlite3* db = nullptr;
  REQUIRE(sqlite3_open_v2(db_path.c_str(), &db, SQLITE_OPEN_READONLY, nullptr) == SQLITE_OK);
  sqlite3_stmt* stmt = nullptr;
  std::string value;
  if (sqlite3_prepare_v2(db, sql.c_str(), -1, &stmt, nullptr) == SQLITE_OK &&
      sqlite3_step(stmt) == SQLITE_ROW && sqlite3_column_text(stmt, 0) != nullptr) {
    value = reinterpret_cast<const char*>(sqlite3_column_text(stmt, 0));
  }
  sqlite3_finalize(stmt);
  sqlite3_close(db);
  return value;
}

/// The attack report as the model received it (the tool message's text), one line each.
std::string attackReport(const FakeOpenAiServer& llm) {
  for (const auto& request : llm.requests()) {
    auto at = request.find("proc_environ:");
    if (at == std::string::npos) continue;
    auto end = request.find('"', at);
    std::string text = request.substr(at, end - at);
    std::string lines;
    for (std::size_t i = 0; i < text.size(); ++i) {
      if (text.compare(i, 2, "\\n") == 0) {
        lines += '\n';
        ++i;
      } else {
        lines += text[i];
      }
    }
    return lines;
  }
  return "";
}

struct AttackRun {
  std::string report;
  std::string err;
  int code = -1;
  std::string approval_state;
  bool planted = false;
};

/// One piped run: an `ask` call parks, then the hostile server attacks.
AttackRun runAttack(const std::string& sandbox_setting) {
  Workspace ws("sandbox-attack");
  FakeOpenAiServer llm;
  llm.requireApiKey(kLlmKey);
  Env env = gantry::e2e::stdioEnv(ws, llm.port());
  ws.writePrivate("vault.key", std::string(32, 'q'));
  env["GANTRY_VAULT_KEY_FILE"] = ws.path() + "/vault.key";
  REQUIRE(runGantry(env, std::string(kLlmKey) + "\n", {"secret", "set", "llm_key"}).code == 0);
  env["LLM_API_KEY"] = "secret://llm_key";
  env["APPROVAL_WAIT_SECONDS"] = "0";
  env["MCP_SANDBOX"] = sandbox_setting;
  ws.write("mcp.toml", std::string("[[server]]\nname = \"other\"\ncommand = \"") + kFakeServer +
                           "\"\ntool_policy = { echo = \"ask\" }\n\n[[server]]\nname = "
                           "\"hostile\"\ncommand = \"" +
                           kFakeServer + "\"\nargs = [\"--attack\"]\n");
  std::filesystem::create_directories(ws.data() + "/mcp/other");
  llm.addReply(
      R"({"tool_calls":[{"id":"c1","name":"other__echo","arguments":"{\"text\":\"hi\"}"}]})");
  const std::string arguments = R"({\"data_dir\":\")" + ws.data() + R"(\",\"key_file\":\")" +
                                ws.path() + R"(/vault.key\",\"persona_dir\":\")" + ws.persona() +
                                R"(\",\"other_state\":\")" + ws.data() + R"(/mcp/other\"})";
  llm.addReply(R"({"tool_calls":[{"id":"c2","name":"hostile__attack","arguments":")" + arguments +
               R"("}]})");
  llm.addReply(R"({"content":"attack done"})");
  auto r = runGantry(env, "echo hi\nattack now\n", {"run"}, 120s);
  AttackRun run;
  run.report = attackReport(llm);
  run.err = r.err;
  run.code = r.code;
  run.approval_state = singleValue(ws.data() + "/gantry.db", "SELECT state FROM approvals");
  run.planted = std::filesystem::exists(ws.data() + "/planted");
  return run;
}

}  // namespace

TEST_CASE(
    "a hostile MCP server in the sandbox reaches none of the host's secrets, record or "
    "process",
    "[e2e][sandbox]") {
  auto run = runAttack("on");
  INFO(run.err);
  INFO(run.report);
  CHECK(run.code == 0);
  REQUIRE_FALSE(run.report.empty());
  for (const char* attack : kAttacks) {
    INFO(attack);
    CHECK(run.report.find(std::string(attack) + ": blocked") != std::string::npos);
  }
  CHECK(run.report.find("ALLOWED") == std::string::npos);
  CHECK(run.report.find("No such file") == std::string::npos);  // refused, not missed
  CHECK(run.approval_state == "pending");
  CHECK_FALSE(run.planted);
  CHECK(run.err.find("\"msg\":\"mcp_sandbox\"") != std::string::npos);
}

TEST_CASE("the same attacks succeed with MCP_SANDBOX=off, so the blocked ones above are real",
          "[e2e][sandbox]") {
  auto run = runAttack("off");
  INFO(run.err);
  INFO(run.report);
  CHECK(run.code == 0);
  REQUIRE_FALSE(run.report.empty());
  for (const char* attack : {"key_file", "vault", "db_read", "db_write", "data_dir_create",
                             "persona", "other_server_state"}) {
    INFO(attack);
    CHECK(run.report.find(std::string(attack) + ": ALLOWED") != std::string::npos);
  }
  CHECK(run.planted);
  CHECK(run.err.find("mcp_sandbox_off") != std::string::npos);
  // Without the sandbox the daemon still keeps its memory and descriptors to itself.
  CHECK(run.report.find("inherited_fd: blocked") != std::string::npos);
}

TEST_CASE("a sandbox grant that would expose the data directory is refused at boot",
          "[e2e][sandbox]") {
  Workspace ws("sandbox-grant");
  FakeOpenAiServer llm;
  Env env = gantry::e2e::stdioEnv(ws, llm.port());
  ws.write("mcp.toml", std::string("[[server]]\nname = \"nosy\"\ncommand = \"") + kFakeServer +
                           "\"\nsandbox = { read = [\"" + ws.data() + "/x\"] }\n");
  auto inside = runGantry(env, "hi\n");
  CHECK(inside.code == 1);
  CHECK(inside.err.find("sandbox.read \"" + ws.data() + "/x\" would expose " + ws.data()) !=
        std::string::npos);
  ws.write("mcp.toml", std::string("[[server]]\nname = \"nosy\"\ncommand = \"") + kFakeServer +
                           "\"\nsandbox = { write = [\"" + ws.path() + "\"] }\n");
  auto around = runGantry(env, "hi\n");
  CHECK(around.code == 1);
  CHECK(around.err.find("sandbox.write \"" + ws.path() + "\" would expose") != std::string::npos);
  ws.write("mcp.toml", std::string("[[server]]\nname = \"nosy\"\ncommand = \"") + kFakeServer +
                           "\"\nsandbox = { exec = [\"/srv\"] }\n");
  auto typo = runGantry(env, "hi\n");
  CHECK(typo.code == 1);
  CHECK(typo.err.find("sandbox.exec: unknown key (read or write)") != std::string::npos);
}

TEST_CASE("without Landlock, stdio servers do not start unless MCP_SANDBOX=off says to trust them",
          "[e2e][sandbox]") {
  Workspace ws("sandbox-none");
  FakeOpenAiServer llm;
  llm.addReply(R"({"content":"unsandboxed reply"})");
  Env env = gantry::e2e::stdioEnv(ws, llm.port());
  env[gantry::e2e::kWrapper] = GANTRY_BUILD_DIR "/tests/fakes/sandbox/without_landlock";
  ws.write("mcp.toml",
           std::string("[[server]]\nname = \"fake\"\ncommand = \"") + kFakeServer + "\"\n");
  auto refused = runGantry(env, "hi\n");
  CHECK(refused.code == 1);
  CHECK(refused.err.find("MCP_SANDBOX: the kernel has no Landlock") != std::string::npos);
  CHECK(refused.err.find("MCP_SANDBOX=off runs them unsandboxed") != std::string::npos);
  CHECK(llm.requests().empty());
  env["MCP_SANDBOX"] = "off";
  auto trusted = runGantry(env, "hi\n");
  INFO(trusted.err);
  CHECK(trusted.code == 0);
  CHECK(trusted.out.find("unsandboxed reply") != std::string::npos);
  CHECK(trusted.err.find("mcp_sandbox_off") != std::string::npos);
}

TEST_CASE("credentials passed as variables are wiped from the running daemon's environment",
          "[e2e][sandbox]") {
  Workspace ws("sandbox-environ");
  FakeOpenAiServer llm;
  llm.requireApiKey("sk-plain-variable-7f3a");
  llm.addReply(R"({"content":"still authorised"})");
  Env env = gantry::e2e::stdioEnv(ws, llm.port());
  env["LLM_API_KEY"] = "sk-plain-variable-7f3a";
  env["API_TOKEN"] = "api-token-plain-81d2";
  gantry::e2e::GantryProcess g(env);
  REQUIRE(g.waitForLog("\"msg\":\"ready\"", 60s));
  std::ifstream in("/proc/" + std::to_string(g.pid()) + "/environ", std::ios::binary);
  std::stringstream environ_text;
  environ_text << in.rdbuf();
  INFO(g.err());
  CHECK(environ_text.str().find("LLM_MODEL=fake-model") != std::string::npos);
  CHECK(environ_text.str().find("sk-plain-variable-7f3a") == std::string::npos);
  CHECK(environ_text.str().find("api-token-plain-81d2") == std::string::npos);
  // The daemon itself still has them: the model call is authorised.
  g.write("hello\n");
  g.closeInput();
  CHECK(g.wait(60s) == 0);
  CHECK(g.out().find("still authorised") != std::string::npos);
}
