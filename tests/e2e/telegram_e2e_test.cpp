// End to end: the real gantry binary with CHANNEL=telegram and its real modules, against the
// fake Bot API and the fake OpenAI-compatible server (both in this process).

#include <catch2/catch.hpp>
#include <chrono>
#include <thread>

#include "e2e/support/gantry_process.h"
#include "fake_openai_server.h"
#include "fake_telegram.h"

using gantry::e2e::Env;
using gantry::e2e::GantryProcess;
using gantry::e2e::Workspace;
using gantry::fakes::FakeTelegram;
using gantry::fakes::SentRecord;
using gantry::testing::FakeOpenAiServer;

namespace {

constexpr std::int64_t kOwner = 111;

std::size_t countText(const FakeTelegram& telegram, const std::string& method,
                      const std::string& needle) {
  std::size_t n = 0;
  for (const SentRecord& record : telegram.sent(method)) {
    n += record.text.find(needle) != std::string::npos;
  }
  return n;
}

struct Fixture {
  Fixture() { telegram.start(); }
  FakeTelegram telegram;
  FakeOpenAiServer llm;
  // A data dir and persona that outlive restarts of the process within one test.
  Workspace workspace{"telegram-e2e"};

  Env env(const Env& extra = {}) const {
    Env env = gantry::e2e::telegramEnv(workspace, llm.port(), telegram.token(), telegram.apiBase(),
                                       kOwner);
    for (const auto& [key, value] : extra) env[key] = value;
    return env;
  }
};

}  // namespace

TEST_CASE("a message gets a formatted reply", "[e2e][telegram]") {
  Fixture f;
  f.llm.addReply(R"({"content":"Hello **there**"})");
  GantryProcess gantry(f.env());
  f.telegram.enqueueText(kOwner, "hi");
  INFO(gantry.err());
  REQUIRE_FALSE(f.telegram.waitText("Hello <b>there</b>").empty());
  CHECK(gantry.stop() == 0);
}

TEST_CASE("an idle instance does not spin against a server that never holds a poll",
          "[e2e][telegram]") {
  Fixture f;
  f.telegram.setHoldPolls(false);
  f.llm.addReply(R"({"content":"still here"})");
  GantryProcess gantry(f.env());
  INFO(gantry.err());
  REQUIRE(f.telegram.waitCalls("getUpdates", 1));
  int before = f.telegram.calls("getUpdates");
  std::this_thread::sleep_for(std::chrono::seconds(2));
  // Unpaced, this was thousands of calls; paced, a handful while backing off to ~1 s.
  CHECK(f.telegram.calls("getUpdates") - before <= 10);
  auto sent_at = std::chrono::steady_clock::now();
  f.telegram.enqueueText(kOwner, "are you there?");
  REQUIRE_FALSE(f.telegram.waitText("still here").empty());
  CHECK(std::chrono::steady_clock::now() - sent_at < std::chrono::seconds(4));
  CHECK(gantry.stop() == 0);
}

TEST_CASE("a stranger's message never reaches the model", "[e2e][telegram]") {
  Fixture f;
  GantryProcess gantry(f.env());
  f.telegram.enqueueText(999, "stranger says hi");
  f.telegram.enqueueText(kOwner, "owner says hi");
  INFO(gantry.err());
  REQUIRE_FALSE(f.telegram.waitText("echo: owner says hi").empty());
  for (const std::string& request : f.llm.requests()) {
    CHECK(request.find("stranger says hi") == std::string::npos);
  }
  CHECK(gantry.err().find("not in TELEGRAM_ALLOWED_USERS") != std::string::npos);
}

TEST_CASE("a long reply is split into several messages", "[e2e][telegram]") {
  Fixture f;
  std::string reply;
  for (int k = 0; k < 400; ++k)
    reply += "Sentence number " + std::to_string(k) + " of the reply.\\n";
  f.llm.addReply(R"({"content":")" + reply + R"("})");
  GantryProcess gantry(f.env());
  f.telegram.enqueueText(kOwner, "tell me a lot");
  INFO(gantry.err());
  REQUIRE_FALSE(f.telegram.waitText("Sentence number 399 of the reply.").empty());
  CHECK(countText(f.telegram, "sendMessage", "Sentence number") >= 3);
  for (const SentRecord& record : f.telegram.sent("sendMessage")) {
    CHECK(gantry::fakes::utf16Length(record.text) <= 4096);
  }
}

TEST_CASE("streamed edits arrive in order and the last shows the full reply", "[e2e][telegram]") {
  Fixture f;
  std::string reply;
  for (int k = 0; k < 60; ++k) reply += "word" + std::to_string(k) + " ";
  reply += "end.";
  f.llm.addReply(R"({"content":")" + reply + R"(","delay_ms":200})");
  GantryProcess gantry(f.env({{"STREAM_REPLIES", "true"}}));
  f.telegram.enqueueText(kOwner, "stream please");
  INFO(gantry.err());
  REQUIRE_FALSE(f.telegram.waitText("end.").empty());
  std::this_thread::sleep_for(std::chrono::milliseconds(500));
  std::vector<std::string> shown;
  for (const SentRecord& record : f.telegram.sent()) {
    if (record.method != "sendMessage" && record.method != "editMessageText") continue;
    if (reply.rfind(record.text, 0) == 0) shown.push_back(record.text);
  }
  REQUIRE_FALSE(shown.empty());
  CHECK(shown.back() == reply);
  CHECK_FALSE(f.telegram.sent("editMessageText").empty());
  for (std::size_t k = 1; k < shown.size(); ++k) CHECK(shown[k - 1].size() <= shown[k].size());
}

TEST_CASE("three quick bubbles become one turn", "[e2e][telegram]") {
  Fixture f;
  f.llm.addReply(R"({"content":"first attempt","delay_ms":3000})");
  GantryProcess gantry(f.env({{"COALESCE_SETTLE_MS", "500"}}));
  f.telegram.enqueueText(kOwner, "bubble one");
  REQUIRE(f.telegram.waitCalls("sendChatAction", 1));
  // The scripted "first attempt" must be taken by bubble one's model call: wait for it, or a
  // turn cancelled before its request goes out leaves the script line to the joined turn.
  for (int i = 0; i < 600 && f.llm.requests().empty(); ++i) {
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
  }
  REQUIRE(f.llm.requests().size() == 1);
  f.telegram.enqueueText(kOwner, "bubble two");
  f.telegram.enqueueText(kOwner, "bubble three");
  INFO(gantry.err());
  REQUIRE_FALSE(f.telegram.waitText("bubble three").empty());
  std::string last = f.llm.requests().back();
  CHECK(last.find("bubble one") != std::string::npos);
  CHECK(last.find("bubble two") != std::string::npos);
  CHECK(countText(f.telegram, "sendMessage", "echo:") == 1);
  CHECK(countText(f.telegram, "sendMessage", "first attempt") == 0);
}

TEST_CASE("messages sent while gantry was stopped are one turn, answering each on its line",
          "[e2e][telegram]") {
  Fixture f;
  f.telegram.enqueueText(kOwner, "backlog one");
  f.telegram.enqueueText(kOwner, "backlog two");
  GantryProcess gantry(f.env({{"COALESCE_SETTLE_MS", "2000"}}));
  INFO(gantry.err());
  REQUIRE_FALSE(f.telegram.waitText("backlog two").empty());
  auto requests = f.llm.requests();
  REQUIRE(requests.size() == 1);
  CHECK(requests[0].find("backlog one\\nbacklog two") != std::string::npos);
  CHECK(countText(f.telegram, "sendMessage", "echo:") == 1);
  CHECK(gantry.stop() == 0);
  // No turn was started for the first message alone, to be cancelled by the second.
  CHECK(gantry::e2e::count(gantry.err(), R"("msg":"turn",)") == 1);
  CHECK(gantry.err().find(R"("outcome":"cancelled")") == std::string::npos);
}

// On a chat platform /cancel acts at once (in a pipe it waits for its turn, so this runs on
// the fake Bot API).
TEST_CASE("a restart does not handle an update twice", "[e2e][telegram]") {
  Fixture f;
  {
    GantryProcess gantry(f.env());
    f.telegram.enqueueText(kOwner, "before restart");
    INFO(gantry.err());
    REQUIRE_FALSE(f.telegram.waitText("echo: before restart").empty());
    CHECK(gantry.stop() == 0);
  }
  GantryProcess restarted(f.env());
  f.telegram.enqueueText(kOwner, "after restart");
  INFO(restarted.err());
  REQUIRE_FALSE(f.telegram.waitText("echo: after restart").empty());
  CHECK(countText(f.telegram, "sendMessage", "echo: before restart") == 1);
  std::size_t seen = 0;
  for (const std::string& request : f.llm.requests()) {
    seen += request.find("before restart") != std::string::npos &&
            request.find("after restart") == std::string::npos;
  }
  CHECK(seen == 1);
}

TEST_CASE("a 429 storm delays the reply but loses nothing", "[e2e][telegram]") {
  Fixture f;
  f.telegram.addFault({"sendMessage", 429, "", 1, false, 3});
  GantryProcess gantry(f.env());
  f.telegram.enqueueText(kOwner, "storm");
  INFO(gantry.err());
  REQUIRE_FALSE(f.telegram.waitText("echo: storm").empty());
  CHECK(f.telegram.calls("sendMessage") >= 4);
}

TEST_CASE("an inbound photo reaches the model as an image part", "[e2e][telegram]") {
  Fixture f;
  f.telegram.addFile("P1", "photos/file_1.jpg", std::string("\xFF\xD8\xFF\xE0photo-bytes", 15));
  GantryProcess gantry(f.env());
  f.telegram.enqueuePhoto(kOwner, "P1", "what is this");
  INFO(gantry.err());
  REQUIRE_FALSE(f.telegram.waitText("echo: what is this").empty());
  REQUIRE_FALSE(f.llm.requests().empty());
  CHECK(f.llm.requests().back().find("data:image/jpeg;base64,") != std::string::npos);
}

TEST_CASE("a bad token stops gantry with a clear error", "[e2e][telegram]") {
  Fixture f;
  GantryProcess gantry(f.env({{"TELEGRAM_BOT_TOKEN", "999:wrong"}}));
  CHECK(gantry.wait() == 1);
  CHECK(gantry.err().find("HTTP 401 Unauthorized (check TELEGRAM_BOT_TOKEN)") != std::string::npos);
}

TEST_CASE("a reply with a markdown image goes out as a photo and its text", "[e2e][telegram]") {
  Fixture f;
  f.llm.addReply(R"({"content":"Here it is ![cat](https://example.com/cat.png) enjoy"})");
  GantryProcess gantry(f.env());
  f.telegram.enqueueText(kOwner, "show me a cat");
  INFO(gantry.err());
  REQUIRE(f.telegram.waitSent(1, "sendPhoto"));
  auto photos = f.telegram.sent("sendPhoto");
  CHECK(photos[0].photo == "https://example.com/cat.png");
  CHECK_FALSE(f.telegram.waitText("Here it is").empty());
}

TEST_CASE("TELEGRAM_ERROR_REPORTING sends warnings to the owner as an expandable quote",
          "[e2e][telegram]") {
  Fixture f;
  GantryProcess gantry(f.env({{"TELEGRAM_ERROR_REPORTING", "warn"}}));
  f.telegram.enqueueText(999, "stranger says hi");  // dropped and logged at warn
  INFO(gantry.err());
  REQUIRE_FALSE(f.telegram.waitText("⚠️ warn").empty());
  bool quoted = false;
  for (const SentRecord& record : f.telegram.sent()) {
    if (record.text.find("⚠️ warn") == std::string::npos) continue;
    quoted = record.text.find("<blockquote expandable>") != std::string::npos;
    CHECK(record.text.find("stranger says hi") == std::string::npos);  // bodies stay out
  }
  CHECK(quoted);
  CHECK(gantry.stop() == 0);
}

TEST_CASE("an unknown TELEGRAM_ERROR_REPORTING value fails boot", "[e2e][telegram]") {
  Fixture f;
  GantryProcess gantry(f.env({{"TELEGRAM_ERROR_REPORTING", "loud"}}));
  CHECK(gantry.wait() == 1);
}

TEST_CASE("the slash commands are registered as the bot's command menu at start",
          "[e2e][telegram]") {
  Fixture f;
  GantryProcess gantry(f.env());
  INFO(gantry.err());
  REQUIRE(f.telegram.waitCalls("getUpdates", 1));
  auto commands = f.telegram.commands();
  std::vector<std::string> names;
  names.reserve(commands.size());
  for (const auto& c : commands) names.push_back(c.command);
  CHECK(names == std::vector<std::string>{"new", "cancel", "status", "tools", "tokens", "perf",
                                          "toolstats", "memstats", "budget", "approval", "approve",
                                          "deny", "help"});
  for (const auto& c : commands) CHECK_FALSE(c.description.empty());
  CHECK(f.telegram.calls("setMyCommands") == 1);
  CHECK(gantry.stop() == 0);
}

TEST_CASE("a refused setMyCommands is a warning and the bot still answers", "[e2e][telegram]") {
  Fixture f;
  f.telegram.addFault({"setMyCommands", 400, "Bad Request: BOT_COMMAND_INVALID", 0, false, 1});
  f.llm.addReply(R"({"content":"still answering"})");
  GantryProcess gantry(f.env());
  f.telegram.enqueueText(kOwner, "hi");
  INFO(gantry.err());
  REQUIRE_FALSE(f.telegram.waitText("still answering").empty());
  CHECK(f.telegram.commands().empty());
  CHECK(gantry.err().find("telegram: command menu not set") != std::string::npos);
  CHECK(gantry.err().find("BOT_COMMAND_INVALID") != std::string::npos);
  CHECK(gantry.stop() == 0);
}
