// End to end: `ask` tools through the real binary with CHANNEL=telegram against the fake Bot API
// and the fake model, the bot token and the LLM key read from the vault (secret://). Approved
// from the chat, approved from the CLI (another process), denied, parked and continued, and
// expired.

#include <signal.h>
#include <sqlite3.h>

#include <catch2/catch.hpp>
#include <chrono>
#include <regex>
#include <thread>

#include "e2e/support/gantry_process.h"
#include "fake_openai_server.h"
#include "fake_telegram.h"

using gantry::e2e::Env;
using gantry::e2e::GantryProcess;
using gantry::e2e::runGantry;
using gantry::e2e::Workspace;
using gantry::fakes::FakeTelegram;
using gantry::fakes::SentRecord;
using gantry::testing::FakeOpenAiServer;
using namespace std::chrono_literals;

namespace {

constexpr std::int64_t kOwner = 111;
constexpr const char* kLlmKey = "llm-key-from-the-vault-5d1e";

std::string approvalId(const std::string& text) {
  std::smatch m;
  return std::regex_search(text, m, std::regex("/approve ([a-z2-7]{8})")) ? m[1].str() : "";
}

/// Runs one statement on the instance's database (a test's way to move time past expiry).
void execSql(const std::string& path, const std::string& sql) {
  sqlite3* db = nullptr;
  REQUIRE(sqlite3_open(path.c_str(), &db) == SQLITE_OK);
  sqlite3_busy_timeout(db, 5000);
  CHECK(sqlite3_exec(db, sql.c_str(), nullptr, nullptr, nullptr) == SQLITE_OK);
  sqlite3_close(db);
}

struct Fixture {
  FakeTelegram telegram;
  FakeOpenAiServer llm;
  Workspace workspace{"approval-e2e"};
  Env base;

  Fixture() {
    telegram.start();
    llm.requireApiKey(kLlmKey);
    base = gantry::e2e::stdioEnv(workspace, llm.port());
    workspace.writePrivate("vault.key", std::string(32, 'v'));
    base["GANTRY_VAULT_KEY_FILE"] = workspace.path() + "/vault.key";
    REQUIRE(runGantry(base, telegram.token() + "\n", {"secret", "set", "bot_token"}).code == 0);
    REQUIRE(runGantry(base, std::string(kLlmKey) + "\n", {"secret", "set", "llm_key"}).code == 0);
    workspace.write("mcp.toml", "[[server]]\nname = \"fake\"\ncommand = \"" GANTRY_BUILD_DIR
                                "/tests/fakes/mcp/fake_mcp_server\"\n"
                                "tool_policy = { echo = \"ask\" }\n");
  }

  Env env(const std::string& wait_seconds) const {
    Env env = gantry::e2e::telegramEnv(workspace, llm.port(), "secret://bot_token",
                                       telegram.apiBase(), kOwner);
    env["LLM_API_KEY"] = "secret://llm_key";
    env["GANTRY_VAULT_KEY_FILE"] = base.at("GANTRY_VAULT_KEY_FILE");
    env["APPROVAL_WAIT_SECONDS"] = wait_seconds;
    return env;
  }

  /// Queues a model turn that calls echo(text), then replies `reply`.
  void echoTurn(const std::string& text, const std::string& reply) {
    llm.addReply(R"({"tool_calls":[{"id":"c-)" + text +
                 R"(","name":"fake__echo","arguments":"{\"text\":\")" + text + R"(\"}"}]})");
    llm.addReply(R"({"content":")" + reply + R"("})");
  }

  /// The model request that carried the tool result for text, or "".
  std::string requestWith(const std::string& needle) {
    for (const auto& request : llm.requests()) {
      if (request.find(needle) != std::string::npos) return request;
    }
    return "";
  }
  std::string db() const { return workspace.data() + "/gantry.db"; }
};

}  // namespace

TEST_CASE("ask tools: approved from the chat, approved from the CLI, denied", "[e2e][approvals]") {
  Fixture f;
  GantryProcess gantry(f.env("60"));
  INFO(gantry.err());

  f.echoTurn("from-chat", "chat approval done");
  f.telegram.enqueueText(kOwner, "echo from-chat");
  std::string id = approvalId(f.telegram.waitText("Approval needed to run fake__echo"));
  REQUIRE(id.size() == 8);
  f.telegram.enqueueText(kOwner, "/approve " + id);
  CHECK_FALSE(f.telegram.waitText("Approved: fake__echo runs now.").empty());
  REQUIRE_FALSE(f.telegram.waitText("chat approval done").empty());
  CHECK(f.requestWith(R"("content":"from-chat")").find(R"("role":"tool")") != std::string::npos);

  f.echoTurn("from-cli", "cli approval done");
  f.telegram.enqueueText(kOwner, "echo from-cli");
  std::string cli_id, listed;
  for (int k = 0; k < 200 && cli_id.empty(); ++k) {
    auto pending = runGantry(f.env("60"), "", {"approvals"});
    listed = pending.err + pending.out;
    if (pending.out.size() > 8) cli_id = pending.out.substr(0, 8);
    if (cli_id.empty()) std::this_thread::sleep_for(std::chrono::milliseconds(50));
  }
  INFO(listed);
  REQUIRE(cli_id.size() == 8);
  auto approved = runGantry(f.env("60"), "", {"approve", cli_id});
  CHECK(approved.code == 0);
  CHECK(approved.out == "approved " + cli_id + ": fake__echo\n");
  REQUIRE_FALSE(f.telegram.waitText("cli approval done").empty());
  auto replay = runGantry(f.env("60"), "", {"approve", cli_id});
  CHECK(replay.code == 1);
  CHECK(replay.err.find("approval " + cli_id + " was already approved") != std::string::npos);

  f.echoTurn("denied", "denial understood");
  f.telegram.enqueueText(kOwner, "echo denied");
  std::string notice = f.telegram.waitText("Approval needed to run fake__echo", 3);
  INFO(notice);
  CHECK(notice.find("denied") != std::string::npos);
  std::string denied = approvalId(notice);
  REQUIRE(denied.size() == 8);
  f.telegram.enqueueText(kOwner, "/deny " + denied);
  REQUIRE_FALSE(f.telegram.waitText("denial understood").empty());
  CHECK_FALSE(
      f.requestWith("the owner denied running fake__echo (approval " + denied + ")").empty());
  CHECK(f.requestWith(R"("content":"denied")").empty());  // echo never ran with it

  CHECK(gantry.stop() == 0);
  for (const auto& request : f.llm.requests()) CHECK(request.find(kLlmKey) == std::string::npos);
  CHECK(gantry.err().find(kLlmKey) == std::string::npos);
  CHECK(gantry.err().find(f.telegram.token()) == std::string::npos);
}

TEST_CASE("ask tools: a call waiting when the process is killed continues after a restart",
          "[e2e][approvals]") {
  Fixture f;
  std::string parked;
  {
    GantryProcess gantry(f.env("60"));
    INFO(gantry.err());
    f.llm.addReply(
        R"({"tool_calls":[{"id":"c1","name":"fake__echo","arguments":"{\"text\":\"later\"}"}]})");
    f.telegram.enqueueText(kOwner, "echo later");
    parked = approvalId(f.telegram.waitText("Approval needed to run fake__echo"));
    REQUIRE(parked.size() == 8);
    gantry.signal(SIGKILL);  // while the turn waits for the decision
    gantry.wait();
  }
  // Decided from the CLI while no instance runs: the next start continues the turn.
  REQUIRE(runGantry(f.env("0"), "", {"approve", parked}).code == 0);
  f.llm.addReply(R"({"content":"continued after the restart"})");
  GantryProcess gantry(f.env("0"));
  INFO(gantry.err());
  REQUIRE_FALSE(f.telegram.waitText("continued after the restart").empty());
  CHECK_FALSE(f.requestWith(R"("content":"later")").empty());

  f.llm.addReply(
      R"({"tool_calls":[{"id":"c2","name":"fake__echo","arguments":"{\"text\":\"never\"}"}]})");
  f.telegram.enqueueText(kOwner, "echo never");
  std::string expiring = approvalId(f.telegram.waitText("Approval needed to run fake__echo", 2));
  REQUIRE(expiring.size() == 8);
  REQUIRE_FALSE(f.telegram.waitText("/deny " + expiring + ". I will go on").empty());
  execSql(f.db(), "UPDATE approvals SET expires_at = 0 WHERE id = '" + expiring + "'");
  REQUIRE_FALSE(
      f.telegram.waitText("Approval " + expiring + " for fake__echo expired without an answer")
          .empty());
  auto late = runGantry(f.env("0"), "", {"approve", expiring});
  CHECK(late.code == 1);
  CHECK(late.err.find("approval " + expiring + " has expired") != std::string::npos);
  CHECK(f.requestWith(R"("content":"never")").empty());
  CHECK(gantry.stop() == 0);
}

TEST_CASE("an approval written into the database by anyone but the owner is not obeyed",
          "[e2e][approvals][sandbox]") {
  Fixture f;
  GantryProcess gantry(f.env("60"));
  INFO(gantry.err());
  f.echoTurn("forged", "owner approved for real");
  f.telegram.enqueueText(kOwner, "echo forged");
  std::string id = approvalId(f.telegram.waitText("Approval needed to run fake__echo"));
  REQUIRE(id.size() == 8);
  // What a process that reached the file could do: mark the call approved itself.
  execSql(f.db(), "UPDATE approvals SET state = 'approved', decided_by = 'cli', decided_at = " +
                      std::to_string(std::chrono::duration_cast<std::chrono::milliseconds>(
                                         std::chrono::system_clock::now().time_since_epoch())
                                         .count()) +
                      " WHERE id = '" + id + "'");
  if (!gantry.waitForLog("\"msg\":\"approval_forged\"", 30s)) FAIL(gantry.err());
  CHECK(f.requestWith(R"("content":"forged")").empty());  // echo did not run
  auto pending = runGantry(f.env("60"), "", {"approvals"});
  CHECK(pending.out.rfind(id, 0) == 0);  // pending again, for the owner to decide
  auto approved = runGantry(f.env("60"), "", {"approve", id});
  CHECK(approved.code == 0);
  if (f.telegram.waitText("owner approved for real").empty()) FAIL(gantry.err());
  CHECK_FALSE(f.requestWith(R"("content":"forged")").empty());
  CHECK(gantry.stop() == 0);
}
