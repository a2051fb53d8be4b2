// End to end: the real gantry binary with CHANNEL=discord and its real modules, against the
// fake Discord Gateway + REST server and the fake OpenAI-compatible server (both in this
// process).

#include <catch2/catch.hpp>
#include <chrono>
#include <thread>

#include "e2e/support/gantry_process.h"
#include "fake_discord.h"
#include "fake_openai_server.h"

using gantry::e2e::Env;
using gantry::e2e::GantryProcess;
using gantry::e2e::Workspace;
using gantry::testing::FakeDiscord;
using gantry::testing::FakeOpenAiServer;

namespace {

constexpr const char* kOwner = "111111111111111111";
constexpr const char* kStranger = "222222222222222222";

std::size_t countContaining(const FakeDiscord& discord, const std::string& needle) {
  std::size_t n = 0;
  for (const auto& message : discord.sent()) {
    n += message.content.find(needle) != std::string::npos;
  }
  return n;
}

bool waitText(const FakeDiscord& discord, const std::string& needle) {
  return discord.waitUntil(
      [&](const FakeDiscord::Stats&, const std::vector<FakeDiscord::Sent>& sent) {
        for (const auto& message : sent) {
          if (message.content.find(needle) != std::string::npos) return true;
        }
        return false;
      },
      std::chrono::seconds(30));
}

bool waitReady(const FakeDiscord& discord, int resumes = 0) {
  return discord.waitUntil(
      [&](const FakeDiscord::Stats& s, const auto&) { return s.ready && s.resumes >= resumes; },
      std::chrono::seconds(30));
}

FakeDiscord::Options options() {
  FakeDiscord::Options options;
  options.heartbeat_interval_ms = 1000;
  return options;
}

std::string dm(FakeDiscord& discord, const std::string& text, const std::string& author = kOwner) {
  FakeDiscord::MessageSpec spec;
  spec.author_id = author;
  spec.content = text;
  return discord.dispatch(spec);
}

struct Fixture {
  FakeDiscord discord{options()};
  FakeOpenAiServer llm;
  Workspace workspace{"discord-e2e"};

  Env env(const Env& extra = {}) const {
    Env env = gantry::e2e::stdioEnv(workspace, llm.port());
    env["CHANNEL"] = "discord";
    env["PROVIDER"] = "openai";
    env["LLM_API_KEY"] = "test-key";
    env["DISCORD_BOT_TOKEN"] = FakeDiscord::Options{}.token;
    env["DISCORD_ALLOWED_USERS"] = kOwner;
    env["DISCORD_API_BASE"] = discord.apiBase();
    env["DISCORD_GATEWAY_URL"] = discord.gatewayUrl();
    env["GANTRY_MODULE_DIR"] = std::string(GANTRY_BUILD_DIR) + "/modules";
    env["CRON_ENABLED"] = "false";
    env["COALESCE_SETTLE_MS"] = "0";
    for (const auto& [key, value] : extra) env[key] = value;
    return env;
  }
};

}  // namespace

TEST_CASE("a DM gets a reply through the real binary", "[e2e][discord]") {
  Fixture f;
  f.llm.addReply(R"({"content":"Hello **there**"})");
  GantryProcess gantry(f.env());
  INFO(gantry.err());
  REQUIRE(waitReady(f.discord));
  dm(f.discord, "hi");
  REQUIRE(waitText(f.discord, "Hello **there**"));
  CHECK(f.discord.sent().at(0).channel_id == FakeDiscord::MessageSpec{}.channel_id);
  CHECK(gantry.stop() == 0);
}

TEST_CASE("a stranger's DM never reaches the model", "[e2e][discord]") {
  Fixture f;
  GantryProcess gantry(f.env());
  REQUIRE(waitReady(f.discord));
  dm(f.discord, "stranger says hi", kStranger);
  dm(f.discord, "owner says hi");
  INFO(gantry.err());
  REQUIRE(waitText(f.discord, "echo: owner says hi"));
  for (const std::string& request : f.llm.requests()) {
    CHECK(request.find("stranger says hi") == std::string::npos);
  }
  CHECK(gantry.err().find("DISCORD_ALLOWED_USERS") != std::string::npos);
}

TEST_CASE("a long reply is split at Discord's 2000-character limit", "[e2e][discord]") {
  Fixture f;
  std::string reply;
  for (int k = 0; k < 200; ++k) {
    reply += "Sentence number " + std::to_string(k) + " of the reply.\\n";
  }
  f.llm.addReply(R"({"content":")" + reply + R"("})");
  GantryProcess gantry(f.env());
  REQUIRE(waitReady(f.discord));
  dm(f.discord, "tell me a lot");
  INFO(gantry.err());
  REQUIRE(waitText(f.discord, "Sentence number 199 of the reply."));
  CHECK(countContaining(f.discord, "Sentence number") >= 3);
  for (const auto& message : f.discord.sent()) CHECK(message.content.size() <= 2000);
}

TEST_CASE("a forced reconnect mid-conversation loses and duplicates nothing", "[e2e][discord]") {
  Fixture f;
  GantryProcess gantry(f.env());
  REQUIRE(waitReady(f.discord));
  dm(f.discord, "first question");
  INFO(gantry.err());
  REQUIRE(waitText(f.discord, "echo: first question"));
  f.discord.reconnect();
  dm(f.discord, "second question");
  dm(f.discord, "third question");
  REQUIRE(waitReady(f.discord, 1));
  dm(f.discord, "fourth question");
  REQUIRE(waitText(f.discord, "echo: fourth question"));
  REQUIRE(waitText(f.discord, "echo: second question"));
  REQUIRE(waitText(f.discord, "echo: third question"));
  std::this_thread::sleep_for(std::chrono::milliseconds(500));  // room for a duplicate
  for (const char* text : {"first", "second", "third", "fourth"}) {
    CHECK(countContaining(f.discord, std::string("echo: ") + text + " question") == 1);
  }
  CHECK(f.discord.stats().identifies == 1);
}

TEST_CASE("streamed replies are edited in place until the full text shows", "[e2e][discord]") {
  Fixture f;
  std::string reply;
  for (int k = 0; k < 60; ++k) reply += "word" + std::to_string(k) + " ";
  reply += "end.";
  f.llm.addReply(R"({"content":")" + reply + R"(","delay_ms":200})");
  GantryProcess gantry(f.env({{"STREAM_REPLIES", "true"}}));
  REQUIRE(waitReady(f.discord));
  dm(f.discord, "stream please");
  INFO(gantry.err());
  REQUIRE(waitText(f.discord, "end."));
  bool shown = false;
  for (const auto& message : f.discord.sent()) shown = shown || message.content == reply;
  CHECK(shown);
}

TEST_CASE("a wrong bot token stops the process with a clear error", "[e2e][discord]") {
  Fixture f;
  GantryProcess gantry(f.env({{"DISCORD_BOT_TOKEN", "wrong-token"}}));
  int code = gantry.wait();
  INFO(gantry.err());
  CHECK(code == 1);
  CHECK(gantry.err().find("4004") != std::string::npos);
  CHECK(gantry.err().find("DISCORD_BOT_TOKEN") != std::string::npos);
}
