// End to end: no byte gantry writes holds a secret. The bot token, the LLM key and a tool's
// secret come from the vault; a tool spills its secret in every common encoding and on stderr,
// the model repeats it in a streamed reply, and an endpoint's error text names the LLM key and
// the secret. Afterwards gantry's stdout and stderr, every file in DATA_DIR, every text sent
// to the (fake) chat and every request the model received are searched for each value in each
// encoding.

#include <catch2/catch.hpp>
#include <chrono>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <thread>
#include <vector>

#include "e2e/support/gantry_process.h"
#include "fake_openai_server.h"
#include "fake_telegram.h"
#include "mcp/secret_encodings.h"

using gantry::e2e::Env;
using gantry::e2e::GantryProcess;
using gantry::e2e::runGantry;
using gantry::e2e::Workspace;
using gantry::fakes::FakeTelegram;
using gantry::fakes::SentRecord;
using gantry::testing::FakeOpenAiServer;

namespace {

constexpr std::int64_t kOwner = 111;
constexpr const char* kLlmKey = "llm-key-sweep-8c2e41b7";
// Characters whose JSON, URL and HTML forms differ from the value itself.
constexpr const char* kToolSecret = R"(sk-sweep/Q7z+9"wB=Lm&Xp4<T>)";

std::string replaceAll(std::string text, const std::string& from, const std::string& to) {
  for (auto at = text.find(from); at != std::string::npos; at = text.find(from, at + to.size())) {
    text.replace(at, from.size(), to);
  }
  return text;
}

std::string jsonString(const std::string& value) {
  return '"' + replaceAll(replaceAll(value, "\\", "\\\\"), "\"", "\\\"") + '"';
}

/// Every form of value this test looks for: as is, JSON-escaped (with and without `\/`),
/// percent-encoded, HTML-escaped, and the part of its base64 and base64url that depends on
/// the value alone, at each of the three alignments.
std::vector<std::string> forms(const std::string& value) {
  const std::string json = jsonString(value).substr(1, jsonString(value).size() - 2);
  std::vector<std::string> out = {
      value, json, replaceAll(json, "/", "\\/"), gantry::fakes::percentEncoded(value),
      replaceAll(
          replaceAll(replaceAll(replaceAll(value, "&", "&amp;"), "\"", "&quot;"), "<", "&lt;"), ">",
          "&gt;")};
  for (const std::string before : {"", "x", "xy"}) {
    for (bool url : {false, true}) {
      const std::string encoded = gantry::fakes::base64(before + value, url);
      const std::size_t skip = before.empty() ? 0 : 4;  // the group that mixes in `before`
      out.push_back(encoded.substr(skip, encoded.size() - skip - 4));  // and the padded end
    }
  }
  return out;
}

std::string readFile(const std::filesystem::path& path) {
  std::ifstream in(path, std::ios::binary);
  return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

/// "where: form" for each secret form found in text; empty when none is.
std::vector<std::string> leaks(const std::string& where, const std::string& text,
                               const std::vector<std::string>& secrets) {
  std::vector<std::string> found;
  for (const auto& secret : secrets) {
    for (const auto& form : forms(secret)) {
      if (text.find(form) != std::string::npos)
        found.push_back(std::string(where).append(": ").append(form));
    }
  }
  return found;
}

}  // namespace

TEST_CASE("no byte gantry writes anywhere holds a secret in any common encoding",
          "[e2e][redaction]") {
  FakeTelegram telegram;
  telegram.start();
  FakeOpenAiServer llm;
  llm.requireApiKey(kLlmKey);
  Workspace ws("redaction-sweep");
  Env base = gantry::e2e::stdioEnv(ws, llm.port());
  ws.writePrivate("vault.key", std::string(32, 's'));
  base["GANTRY_VAULT_KEY_FILE"] = ws.path() + "/vault.key";
  REQUIRE(runGantry(base, telegram.token() + "\n", {"secret", "set", "bot_token"}).code == 0);
  REQUIRE(runGantry(base, std::string(kLlmKey) + "\n", {"secret", "set", "llm_key"}).code == 0);
  REQUIRE(runGantry(base, kToolSecret, {"secret", "set", "tool_secret"}).code == 0);
  ws.write("mcp.toml", "[[server]]\nname = \"fake\"\ncommand = \"" GANTRY_BUILD_DIR
                       "/tests/fakes/mcp/fake_mcp_server\"\nargs = [\"--leak\", \"TOKEN\"]\n"
                       "env = { TOKEN = \"secret://tool_secret\" }\n");

  Env env =
      gantry::e2e::telegramEnv(ws, llm.port(), "secret://bot_token", telegram.apiBase(), kOwner);
  env["LLM_API_KEY"] = "secret://llm_key";
  env["GANTRY_VAULT_KEY_FILE"] = base.at("GANTRY_VAULT_KEY_FILE");
  env["MCP_MANIFEST"] = ws.path() + "/mcp.toml";
  env["STREAM_REPLIES"] = "true";
  env["TELEGRAM_ERROR_REPORTING"] = "warn";

  llm.addReply(R"({"tool_calls":[{"id":"c1","name":"fake__leak","arguments":"{}"}]})");
  llm.addReply(R"({"content":)" +
               jsonString(std::string("the tool said ") + kToolSecret + " and that is all") + "}");
  llm.addReply(R"({"status":400,"error_message":)" +
               jsonString(std::string("key ") + kLlmKey + " may not read " + kToolSecret) + "}");

  GantryProcess gantry(env);
  INFO(gantry.err());
  telegram.enqueueText(kOwner, "spill it");
  REQUIRE_FALSE(telegram.waitText("and that is all").empty());
  CHECK_FALSE(telegram.waitText("the tool said [redacted:tool_secret] and that is all").empty());
  telegram.enqueueText(kOwner, "once more");
  REQUIRE_FALSE(telegram.waitText("may not read").empty());
  REQUIRE(gantry.waitForLog("leaking", std::chrono::seconds(10)));  // the tool's stderr, relayed
  CHECK(gantry.stop() == 0);

  const std::vector<std::string> secrets = {kToolSecret, kLlmKey, telegram.token()};
  std::vector<std::string> found;
  const auto search = [&](const std::string& where, const std::string& text) {
    auto more = leaks(where, text, secrets);
    found.insert(found.end(), more.begin(), more.end());
  };
  search("stdout", gantry.out());
  search("stderr", gantry.err());
  std::size_t files = 0;
  for (const auto& entry : std::filesystem::recursive_directory_iterator(ws.data())) {
    if (!entry.is_regular_file()) continue;
    ++files;
    search(entry.path().string(), readFile(entry.path()));
  }
  for (const SentRecord& record : telegram.sent()) search("chat " + record.method, record.text);
  for (const auto& request : llm.requests()) search("model request", request);
  CHECK(files >= 2);  // the database and the vault at least
  CHECK(found == std::vector<std::string>{});

  // The markers stand where the values were: the spilled encodings in the tool result the model
  // got, the relayed stderr line, and the error text in the chat.
  REQUIRE(llm.requests().size() >= 2);
  CHECK(llm.requests()[1].find("base64 [redacted:tool_secret]") != std::string::npos);
  CHECK(gantry.err().find("leaking [redacted:tool_secret]") != std::string::npos);
  CHECK_FALSE(
      telegram.waitText("key [redacted:llm_key] may not read [redacted:tool_secret]").empty());
}
