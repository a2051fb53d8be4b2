// End-to-end: `gantry secret` keeps a secret in DATA_DIR/vault, and a secret:// reference in
// the environment is resolved from it at boot and never written anywhere.
#include <signal.h>
#include <sqlite3.h>
#include <sys/stat.h>

#include <catch2/catch.hpp>
#include <fstream>
#include <iterator>
#include <thread>
#include <vector>

#include "e2e/support/gantry_process.h"
#include "openai/fake_openai_server.h"

using gantry::e2e::Env;
using gantry::e2e::GantryProcess;
using gantry::e2e::runGantry;
using gantry::e2e::Workspace;
using gantry::testing::FakeOpenAiServer;
using namespace std::chrono_literals;

namespace {

constexpr const char* kSecret = "sk-e2e-4f1c9a7d";

std::string read(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

/// Every recorded tool result: the tool_calls rows' results, then the tool messages.
std::vector<std::string> toolResults(const std::string& path) {
  std::vector<std::string> out;
  sqlite3* db = nullptr;
  if (sqlite3_open_v2(path.c_str(), &db, SQLITE_OPEN_READONLY, nullptr) != SQLITE_OK) return out;
  for (const char* sql : {"SELECT result FROM tool_calls ORDER BY id",
                          "SELECT content FROM messages WHERE role = 'tool' ORDER BY id"}) {
    sqlite3_stmt* stmt = nullptr;
    if (sqlite3_prepare_v2(db, sql, -1, &stmt, nullptr) != SQLITE_OK) continue;
    while (sqlite3_step(stmt) == SQLITE_ROW) {
      const auto* text = sqlite3_column_text(stmt, 0);
      out.emplace_back(text ? reinterpret_cast<const char*>(text) : "");
    }
    sqlite3_finalize(stmt);
  }
  sqlite3_close(db);
  return out;
}

/// The environment of the secret command and of the instance: one key file.
Env withKey(const Workspace& ws, Env env, char fill = 'k') {
  ws.writePrivate("vault.key", std::string(32, fill));
  env["GANTRY_VAULT_KEY_FILE"] = ws.path() + "/vault.key";
  env["DATA_DIR"] = ws.data();
  return env;
}

}  // namespace

TEST_CASE("a secret set from a pipe is listed without its value and resolved at boot", "[e2e]") {
  FakeOpenAiServer llm;
  llm.requireApiKey(kSecret);
  Workspace ws("vault");
  auto env = withKey(ws, gantry::e2e::stdioEnv(ws, llm.port()));
  auto set = runGantry(env, std::string(kSecret) + "\n", {"secret", "set", "llm_key"});
  INFO(set.err);
  REQUIRE(set.code == 0);
  struct stat info {};
  REQUIRE(::stat((ws.data() + "/vault").c_str(), &info) == 0);
  CHECK((info.st_mode & 0777) == 0600);
  CHECK(read(ws.data() + "/vault").find(kSecret) == std::string::npos);

  auto list = runGantry(env, "", {"secret", "list"});
  CHECK(list.code == 0);
  CHECK(list.out.rfind("llm_key\t", 0) == 0);
  CHECK(list.out.find(kSecret) == std::string::npos);

  env["LLM_API_KEY"] = "secret://llm_key";
  env["LOG_LEVEL"] = "debug";
  auto turn = runGantry(env, "hello\n");
  INFO(turn.err);
  CHECK(turn.code == 0);
  CHECK(turn.out.find("echo: hello") != std::string::npos);  // the fake accepted the key
  CHECK(turn.err.find(kSecret) == std::string::npos);
  CHECK(turn.out.find(kSecret) == std::string::npos);
}

TEST_CASE("a reference that cannot be resolved fails boot naming it, the vault untouched",
          "[e2e]") {
  FakeOpenAiServer llm;
  Workspace ws("vault-fail");
  auto env = withKey(ws, gantry::e2e::stdioEnv(ws, llm.port()));
  REQUIRE(runGantry(env, std::string(kSecret), {"secret", "set", "llm_key"}).code == 0);
  const auto before = read(ws.data() + "/vault");

  env["LLM_API_KEY"] = "secret://nope";
  auto missing = runGantry(env, "hello\n");
  CHECK(missing.code == 1);
  CHECK(missing.err.find("LLM_API_KEY: secret://nope: not in the vault") != std::string::npos);

  env["LLM_API_KEY"] = "secret://llm_key";
  env = withKey(ws, env, 'w');  // another key file
  auto wrong = runGantry(env, "hello\n");
  CHECK(wrong.code == 1);
  CHECK(wrong.err.find("LLM_API_KEY: secret://llm_key:") != std::string::npos);
  CHECK(wrong.err.find("wrong key file") != std::string::npos);
  CHECK(wrong.err.find(kSecret) == std::string::npos);
  CHECK(read(ws.data() + "/vault") == before);
  CHECK(llm.requests().empty());
}

TEST_CASE("gantry secret rm removes a secret, and bad names and usage are refused", "[e2e]") {
  Workspace ws("vault-rm");
  auto env = withKey(ws, {});
  REQUIRE(runGantry(env, "v1", {"secret", "set", "a.b-c_1"}).code == 0);
  CHECK(runGantry(env, "v", {"secret", "set", "bad name"}).code == 2);
  CHECK(runGantry(env, "", {"secret", "frobnicate"}).code == 2);
  CHECK(runGantry(env, "", {"secret", "set", "empty"}).code == 1);
  CHECK(runGantry(env, "", {"secret", "rm", "a.b-c_1"}).code == 0);
  auto again = runGantry(env, "", {"secret", "rm", "a.b-c_1"});
  CHECK(again.code == 1);
  CHECK(again.err.find("no secret named a.b-c_1") != std::string::npos);
  CHECK(runGantry(env, "", {"secret", "list"}).out.empty());
  auto no_key = runGantry({{"DATA_DIR", ws.data()}}, "v", {"secret", "set", "x"});
  CHECK(no_key.code == 1);
  CHECK(no_key.err.find("GANTRY_VAULT_PASSPHRASE or GANTRY_VAULT_KEY_FILE") != std::string::npos);
}

TEST_CASE("a vault key file others can read is refused with one line, as ssh refuses a key",
          "[e2e]") {
  Workspace ws("vault-key-mode");
  auto env = withKey(ws, {});
  REQUIRE(runGantry(env, "v1", {"secret", "set", "one"}).code == 0);
  ::chmod((ws.path() + "/vault.key").c_str(), 0644);
  auto refused = runGantry(env, "v2", {"secret", "set", "two"});
  CHECK(refused.code == 1);
  CHECK(refused.err.find("is readable by group or others (mode 0644)") != std::string::npos);
  CHECK(refused.err.find("chmod 600 " + ws.path() + "/vault.key") != std::string::npos);
  ::chmod((ws.path() + "/vault.key").c_str(), 0640);
  CHECK(runGantry(env, "v2", {"secret", "set", "two"}).code == 1);
  ::chmod((ws.path() + "/vault.key").c_str(), 0400);
  CHECK(runGantry(env, "v2", {"secret", "set", "two"}).code == 0);
}

TEST_CASE("a tool result echoing a secret reaches the record and the model only as its marker",
          "[e2e]") {
  FakeOpenAiServer llm;
  const std::string echo_secret = std::string(R"({"text":"the token is )") + kSecret + R"("})";
  std::string escaped;
  for (char c : echo_secret) escaped += c == '"' ? std::string("\\\"") : std::string(1, c);
  llm.addReply(R"({"tool_calls":[{"id":"c1","name":"fake__echo","arguments":")" + escaped +
               R"("}]})");
  llm.addReply(
      R"({"tool_calls":[{"id":"c2","name":"fake__echo","arguments":"{\"text\":\"[redacted:tok]\"}"}]})");
  llm.addReply(R"({"content":"done"})");
  Workspace ws("vault-tool");
  auto env = withKey(ws, gantry::e2e::stdioEnv(ws, llm.port()));
  REQUIRE(runGantry(env, kSecret, {"secret", "set", "tok"}).code == 0);
  ws.write("mcp.toml", "[[server]]\nname = \"fake\"\ncommand = \"" GANTRY_BUILD_DIR
                       "/tests/fakes/mcp/fake_mcp_server\"\nenv = { TOKEN = \"secret://tok\" }\n");
  env["MCP_MANIFEST"] = ws.path() + "/mcp.toml";
  auto turn = runGantry(env, "show me the token\n");
  INFO(turn.err);
  CHECK(turn.code == 0);
  REQUIRE(llm.requests().size() == 3);
  CHECK(llm.requests()[1].find("the token is [redacted:tok]") != std::string::npos);
  CHECK(llm.requests()[2].find("contain a [redacted:") != std::string::npos);
  const auto results = toolResults(ws.data() + "/gantry.db");
  REQUIRE(results.size() == 4);  // two tool_calls rows, two tool messages
  for (const auto& result : results) CHECK(result.find(kSecret) == std::string::npos);
  CHECK(results[0] == "the token is [redacted:tok]");
  CHECK(turn.err.find("the token is " + std::string(kSecret)) == std::string::npos);
}

TEST_CASE("a secret in the model's streamed reply reaches the chat only as its marker", "[e2e]") {
  FakeOpenAiServer llm;
  // Streamed in 8-byte pieces, so the value arrives split across deltas.
  llm.addReply(std::string(R"({"content":"your token is )") + kSecret + R"(, keep it safe"})");
  llm.addReply(std::string(R"({"content":"again: )") + kSecret + R"("})");
  Workspace ws("vault-reply");
  auto env = withKey(ws, gantry::e2e::stdioEnv(ws, llm.port()));
  REQUIRE(runGantry(env, kSecret, {"secret", "set", "tok"}).code == 0);
  ws.write("mcp.toml", "[[server]]\nname = \"fake\"\ncommand = \"" GANTRY_BUILD_DIR
                       "/tests/fakes/mcp/fake_mcp_server\"\nenv = { TOKEN = \"secret://tok\" }\n");
  env["MCP_MANIFEST"] = ws.path() + "/mcp.toml";
  env["STREAM_REPLIES"] = "true";
  auto streamed = runGantry(env, "what is my token?\n");
  INFO(streamed.err);
  CHECK(streamed.code == 0);
  CHECK(streamed.out.find("your token is [redacted:tok], keep it safe") != std::string::npos);
  env["STREAM_REPLIES"] = "false";
  auto whole = runGantry(env, "once more\n");
  CHECK(whole.out.find("again: [redacted:tok]") != std::string::npos);
  for (const auto* out : {&streamed.out, &whole.out, &streamed.err, &whole.err}) {
    // Not the value, nor any piece of it long enough to be one of the streamed deltas.
    CHECK(out->find("sk-e2e-4") == std::string::npos);
    CHECK(out->find("4f1c9a7d") == std::string::npos);
  }
}

TEST_CASE("a vault replaced by an older copy is refused at boot", "[e2e]") {
  FakeOpenAiServer llm;
  Workspace ws("vault-rollback");
  auto env = withKey(ws, gantry::e2e::stdioEnv(ws, llm.port()));
  REQUIRE(runGantry(env, "first-value-1\n", {"secret", "set", "llm_key"}).code == 0);
  const std::string old_copy = read(ws.data() + "/vault");
  REQUIRE(runGantry(env, "second-value-2\n", {"secret", "set", "llm_key"}).code == 0);
  env["LLM_API_KEY"] = "secret://llm_key";
  auto current = runGantry(env, "hello\n");
  INFO(current.err);
  REQUIRE(current.code == 0);

  ws.write("data/vault", old_copy);  // authentic, but older than what the instance has read
  auto rolled_back = runGantry(env, "hello\n");
  CHECK(rolled_back.code == 1);
  CHECK(rolled_back.err.find("is generation 1, older than generation 2 this instance read "
                             "before: the file was replaced by an older copy") !=
        std::string::npos);
  CHECK(rolled_back.err.find("first-value-1") == std::string::npos);
}

TEST_CASE("SIGHUP takes up a changed vault value with a restart in place", "[e2e]") {
  FakeOpenAiServer llm;
  llm.requireApiKey("first-key-value");
  Workspace ws("vault-reload");
  auto env = withKey(ws, gantry::e2e::stdioEnv(ws, llm.port()));
  REQUIRE(runGantry(env, "first-key-value\n", {"secret", "set", "llm_key"}).code == 0);
  env["LLM_API_KEY"] = "secret://llm_key";
  GantryProcess gantry(env);
  INFO(gantry.err());
  gantry.write("hello\n");
  REQUIRE(gantry.waitForOutput("echo: hello", 30s));
  const int pid = gantry.pid();

  gantry.signal(SIGHUP);  // nothing changed: no restart
  REQUIRE(gantry.waitForLog("vault_unchanged", 30s));
  REQUIRE(runGantry(env, "second-key-value\n", {"secret", "set", "llm_key"}).code == 0);
  llm.requireApiKey("second-key-value");
  gantry.signal(SIGHUP);
  REQUIRE(gantry.waitForLog(R"("msg":"restarting")", 30s));
  for (int k = 0; k < 600 && gantry::e2e::count(gantry.err(), R"("msg":"ready")") < 2; ++k) {
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
  }
  CHECK(gantry.pid() == pid);  // the same process, a new image
  gantry.write("again\n");
  CHECK(gantry.waitForOutput("echo: again", 30s));
  gantry.closeInput();
  CHECK(gantry.wait(30s) == 0);
  CHECK(gantry.err().find("second-key-value") == std::string::npos);
}
