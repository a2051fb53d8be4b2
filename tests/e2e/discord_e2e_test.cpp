// End to end: the real gantry binary with CHANNEL=discord and its real modules, against the
// fake Discord Gateway + REST server and the fake OpenAI-compatible server (both in this
// process).

#include <Poco/Pipe.h>
#include <Poco/PipeStream.h>
#include <Poco/Process.h>
#include <Poco/TemporaryFile.h>

#include <catch2/catch.hpp>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <mutex>
#include <thread>

#include "fake_discord.h"
#include "fake_openai_server.h"

using gantry::testing::FakeDiscord;
using gantry::testing::FakeOpenAiServer;

namespace {

constexpr const char* kOwner = "111111111111111111";
constexpr const char* kStranger = "222222222222222222";

class Workspace {
 public:
  Workspace() : root_(Poco::TemporaryFile::tempName()) {
    std::filesystem::create_directories(root_ + "/persona");
    std::filesystem::create_directories(root_ + "/data");
    std::ofstream(root_ + "/persona/IDENTITY.md") << "You are a test agent.\n";
  }
  ~Workspace() { std::filesystem::remove_all(root_); }
  const std::string& root() const { return root_; }

 private:
  std::string root_;
};

// The gantry daemon as a child process; stderr is drained so it never blocks on logs.
class Gantry {
 public:
  Gantry(const Workspace& workspace, const FakeDiscord& discord, const FakeOpenAiServer& llm,
         Poco::Process::Env extra = {}) {
    Poco::Process::Env env = {
        {"CHANNEL", "discord"},
        {"PROVIDER", "openai"},
        {"LLM_BASE_URL", llm.baseUrl()},
        {"LLM_API_KEY", "test-key"},
        {"LLM_MODEL", "fake-model"},
        {"DISCORD_BOT_TOKEN", FakeDiscord::Options{}.token},
        {"DISCORD_ALLOWED_USERS", kOwner},
        {"DISCORD_API_BASE", discord.apiBase()},
        {"DISCORD_GATEWAY_URL", discord.gatewayUrl()},
        {"PERSONA_DIR", workspace.root() + "/persona"},
        {"DATA_DIR", workspace.root() + "/data"},
        {"MCP_MANIFEST", workspace.root() + "/none.toml"},
        {"GANTRY_MODULE_DIR", std::string(GANTRY_BUILD_DIR) + "/modules"},
        {"MEMORY_CONSOLIDATE_MINUTES", "0"},
        {"CRON_ENABLED", "false"},
        {"COALESCE_SETTLE_MS", "0"},
        {"LOG_LEVEL", "debug"},
    };
    for (auto& [key, value] : extra) env[key] = value;
    handle_ = std::make_unique<Poco::ProcessHandle>(Poco::Process::launch(
        std::string(GANTRY_BUILD_DIR) + "/gantry", {"run"}, nullptr, nullptr, &err_, env));
    drain_ = std::thread([this] {
      Poco::PipeInputStream in(err_);
      for (std::string line; std::getline(in, line);) {
        std::lock_guard lock(mutex_);
        log_ += line + "\n";
      }
    });
  }
  ~Gantry() {
    stop();
    if (std::getenv("DISCORD_E2E_LOGS") != nullptr) std::fprintf(stderr, "%s", log_.c_str());
  }

  /// SIGTERM (when still running) and wait for the exit code.
  int stop() {
    if (!handle_) return exit_code_;
    if (Poco::Process::isRunning(*handle_)) Poco::Process::requestTermination(handle_->id());
    exit_code_ = handle_->wait();
    handle_.reset();
    if (drain_.joinable()) drain_.join();
    return exit_code_;
  }
  /// Waits (generously) for the process to exit by itself, else stops it.
  int wait() {
    for (int k = 0; k < 1200 && handle_; ++k) {
      int code = handle_->tryWait();  // reaps the child; -1 while it runs
      if (code != -1) {
        exit_code_ = code;
        handle_.reset();
        if (drain_.joinable()) drain_.join();
        return exit_code_;
      }
      std::this_thread::sleep_for(std::chrono::milliseconds(50));
    }
    return stop();
  }
  std::string log() const {
    std::lock_guard lock(mutex_);
    return log_;
  }

 private:
  std::unique_ptr<Poco::ProcessHandle> handle_;
  Poco::Pipe err_;
  std::thread drain_;
  mutable std::mutex mutex_;
  std::string log_;
  int exit_code_ = -1;
};

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
  Workspace workspace;
};

}  // namespace

TEST_CASE("a DM gets a reply through the real binary", "[e2e][discord]") {
  Fixture f;
  f.llm.addReply(R"({"content":"Hello **there**"})");
  Gantry gantry(f.workspace, f.discord, f.llm);
  INFO(gantry.log());
  REQUIRE(waitReady(f.discord));
  dm(f.discord, "hi");
  REQUIRE(waitText(f.discord, "Hello **there**"));
  CHECK(f.discord.sent().at(0).channel_id == FakeDiscord::MessageSpec{}.channel_id);
  CHECK(gantry.stop() == 0);
}

TEST_CASE("a stranger's DM never reaches the model", "[e2e][discord]") {
  Fixture f;
  Gantry gantry(f.workspace, f.discord, f.llm);
  REQUIRE(waitReady(f.discord));
  dm(f.discord, "stranger says hi", kStranger);
  dm(f.discord, "owner says hi");
  INFO(gantry.log());
  REQUIRE(waitText(f.discord, "echo: owner says hi"));
  for (const std::string& request : f.llm.requests()) {
    CHECK(request.find("stranger says hi") == std::string::npos);
  }
  CHECK(gantry.log().find("DISCORD_ALLOWED_USERS") != std::string::npos);
}

TEST_CASE("a long reply is split at Discord's 2000-character limit", "[e2e][discord]") {
  Fixture f;
  std::string reply;
  for (int k = 0; k < 200; ++k) {
    reply += "Sentence number " + std::to_string(k) + " of the reply.\\n";
  }
  f.llm.addReply(R"({"content":")" + reply + R"("})");
  Gantry gantry(f.workspace, f.discord, f.llm);
  REQUIRE(waitReady(f.discord));
  dm(f.discord, "tell me a lot");
  INFO(gantry.log());
  REQUIRE(waitText(f.discord, "Sentence number 199 of the reply."));
  CHECK(countContaining(f.discord, "Sentence number") >= 3);
  for (const auto& message : f.discord.sent()) CHECK(message.content.size() <= 2000);
}

TEST_CASE("a forced reconnect mid-conversation loses and duplicates nothing", "[e2e][discord]") {
  Fixture f;
  Gantry gantry(f.workspace, f.discord, f.llm);
  REQUIRE(waitReady(f.discord));
  dm(f.discord, "first question");
  INFO(gantry.log());
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
  Gantry gantry(f.workspace, f.discord, f.llm, {{"STREAM_REPLIES", "true"}});
  REQUIRE(waitReady(f.discord));
  dm(f.discord, "stream please");
  INFO(gantry.log());
  REQUIRE(waitText(f.discord, "end."));
  bool shown = false;
  for (const auto& message : f.discord.sent()) shown = shown || message.content == reply;
  CHECK(shown);
}

TEST_CASE("a wrong bot token stops the process with a clear error", "[e2e][discord]") {
  Fixture f;
  Gantry gantry(f.workspace, f.discord, f.llm, {{"DISCORD_BOT_TOKEN", "wrong-token"}});
  int code = gantry.wait();
  INFO(gantry.log());
  CHECK(code == 1);
  CHECK(gantry.log().find("4004") != std::string::npos);
  CHECK(gantry.log().find("DISCORD_BOT_TOKEN") != std::string::npos);
}
