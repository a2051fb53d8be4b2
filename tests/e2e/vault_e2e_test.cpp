// End-to-end: `gantry secret` keeps a secret in DATA_DIR/vault, and a secret:// reference in
// the environment is resolved from it at boot and never written anywhere.
#include <sys/stat.h>

#include <catch2/catch.hpp>
#include <fstream>
#include <iterator>

#include "e2e/support/gantry_process.h"
#include "openai/fake_openai_server.h"

using gantry::e2e::Env;
using gantry::e2e::runGantry;
using gantry::e2e::Workspace;
using gantry::testing::FakeOpenAiServer;

namespace {

constexpr const char* kSecret = "sk-e2e-4f1c9a7d";

std::string read(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

/// The environment of the secret command and of the instance: one key file.
Env withKey(const Workspace& ws, Env env, char fill = 'k') {
  ws.write("vault.key", std::string(32, fill));
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

TEST_CASE("gantry secret rm removes a secret; bad names and usage are refused", "[e2e]") {
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
