// End to end: the real gantry binary with CHANNEL=slack and its real modules, against the
// fake Slack (Web API + Socket Mode) and the fake OpenAI-compatible server, both in process.

#include <catch2/catch.hpp>
#include <chrono>
#include <thread>

#include "e2e/support/gantry_process.h"
#include "fake_openai_server.h"
#include "fake_slack.h"

using gantry::e2e::GantryProcess;
using gantry::e2e::Workspace;
using gantry::fakes::FakeSlack;
using gantry::testing::FakeOpenAiServer;
using namespace std::chrono_literals;

namespace {

constexpr const char* kOwner = "U0OWNER";
constexpr const char* kChat = "DU0OWNER";  // the fake's DM channel with kOwner

struct Fixture {
  FakeSlack slack;
  FakeOpenAiServer llm;
  Workspace workspace{"slack-e2e"};

  gantry::e2e::Env env(const gantry::e2e::Env& extra = {}) {
    auto env = gantry::e2e::stdioEnv(workspace, llm.port());
    env["CHANNEL"] = "slack";
    env["LLM_API_KEY"] = "test-key";
    env["SLACK_BOT_TOKEN"] = slack.options().bot_token;
    env["SLACK_APP_TOKEN"] = slack.options().app_token;
    env["SLACK_ALLOWED_USERS"] = kOwner;
    env["SLACK_API_BASE"] = slack.apiBase();
    env["GANTRY_MODULE_DIR"] = std::string(GANTRY_BUILD_DIR) + "/modules";
    env["COALESCE_SETTLE_MS"] = "0";
    env["CRON_ENABLED"] = "false";
    for (const auto& [key, value] : extra) env[key] = value;
    return env;
  }

  void dm(const std::string& text) {
    FakeSlack::Event event;
    event.user = kOwner;
    event.text = text;
    slack.enqueue(event);
  }

  int posted(const std::string& needle) const {
    int n = 0;
    for (const auto& message : slack.messages()) {
      n += message.text.find(needle) != std::string::npos;
      for (const auto& edit : message.edits) n += edit.find(needle) != std::string::npos;
    }
    return n;
  }

  bool waitPosted(const std::string& needle) {
    return FakeSlack::waitFor([&] { return posted(needle) > 0; }, 60s);
  }

  bool connected(int sockets = 1) {
    return FakeSlack::waitFor([&] { return slack.stats().sockets_accepted >= sockets; }, 60s);
  }
};

}  // namespace

TEST_CASE("a DM gets a reply rendered as mrkdwn", "[e2e][slack]") {
  Fixture f;
  f.llm.addReply(R"({"content":"Hello **there** & welcome"})");
  GantryProcess gantry(f.env());
  INFO(gantry.err());
  REQUIRE(f.connected());
  f.dm("hi");
  REQUIRE(f.waitPosted("Hello *there* &amp; welcome"));
  CHECK(f.slack.messages().front().channel == kChat);
  CHECK(gantry.stop() == 0);
}

TEST_CASE("a stranger's DM never reaches the model", "[e2e][slack]") {
  Fixture f;
  GantryProcess gantry(f.env());
  INFO(gantry.err());
  REQUIRE(f.connected());
  FakeSlack::Event stranger;
  stranger.user = "U0STRANGER";
  stranger.text = "stranger says hi";
  f.slack.enqueue(stranger);
  f.dm("owner says hi");
  REQUIRE(f.waitPosted("echo: owner says hi"));
  for (const auto& request : f.llm.requests()) {
    CHECK(request.find("stranger says hi") == std::string::npos);
  }
  CHECK(gantry.err().find("SLACK_ALLOWED_USERS") != std::string::npos);
  CHECK(f.posted("stranger") == 0);
}

TEST_CASE("a long reply is split below Slack's limit", "[e2e][slack]") {
  Fixture f;
  std::string reply;
  for (int k = 0; k < 400; ++k) {
    reply += "Sentence number " + std::to_string(k) + " of the reply.\\n";
  }
  f.llm.addReply(R"({"content":")" + reply + R"("})");
  GantryProcess gantry(f.env());
  INFO(gantry.err());
  REQUIRE(f.connected());
  f.dm("tell me a lot");
  REQUIRE(f.waitPosted("Sentence number 399 of the reply."));
  CHECK(f.slack.messages().size() >= 3);
  for (const auto& message : f.slack.messages()) CHECK(message.text.size() <= 4000);
  CHECK(f.posted("Sentence number 200 of the reply.") == 1);
}

TEST_CASE("a forced reconnect mid-conversation loses and duplicates nothing", "[e2e][slack]") {
  Fixture f;
  GantryProcess gantry(f.env());
  INFO(gantry.err());
  REQUIRE(f.connected());
  f.dm("one");
  REQUIRE(f.waitPosted("echo: one"));
  f.slack.disconnect("refresh_requested");
  f.dm("two");  // goes out on the socket being replaced
  REQUIRE(f.connected(2));
  f.dm("three");
  REQUIRE(f.waitPosted("echo: two"));
  REQUIRE(f.waitPosted("echo: three"));
  f.slack.dropSocket();  // and a network fault on the new socket
  REQUIRE(f.connected(3));
  f.dm("four");
  REQUIRE(f.waitPosted("echo: four"));
  std::this_thread::sleep_for(1s);  // room for a wrongful duplicate to show up
  for (const char* text : {"echo: one", "echo: two", "echo: three", "echo: four"}) {
    CHECK(f.posted(text) == 1);
  }
  CHECK(f.llm.requests().size() == 4);
  CHECK(f.slack.stats().unacked.empty());
  CHECK(gantry.stop() == 0);
}

TEST_CASE("a 429 on chat.postMessage delays the reply but loses nothing", "[e2e][slack]") {
  Fixture f;
  f.slack.scriptError("chat.postMessage", 429, "", 1, 2);
  GantryProcess gantry(f.env());
  INFO(gantry.err());
  REQUIRE(f.connected());
  f.dm("storm");
  REQUIRE(f.waitPosted("echo: storm"));
  CHECK(f.posted("echo: storm") == 1);
}

TEST_CASE("a rejected app token fails boot naming SLACK_APP_TOKEN", "[e2e][slack]") {
  Fixture f;
  GantryProcess gantry(f.env({{"SLACK_APP_TOKEN", "xapp-wrong"}}));
  CHECK(gantry.wait() == 1);
  CHECK(gantry.err().find("SLACK_APP_TOKEN") != std::string::npos);
}

TEST_CASE("a streamed reply is edited in place and ends with the full text", "[e2e][slack]") {
  Fixture f;
  std::string reply;
  for (int k = 0; k < 60; ++k) reply += "word" + std::to_string(k) + " ";
  reply += "end.";
  f.llm.addReply(R"({"content":")" + reply + R"(","delay_ms":200})");
  GantryProcess gantry(f.env({{"STREAM_REPLIES", "true"}}));
  INFO(gantry.err());
  REQUIRE(f.connected());
  f.dm("stream please");
  REQUIRE(f.waitPosted("end."));
  std::this_thread::sleep_for(500ms);
  auto messages = f.slack.messages();
  REQUIRE_FALSE(messages.empty());
  const auto& last = messages.back();
  CHECK((last.edits.empty() ? last.text : last.edits.back()) == reply);
}

TEST_CASE("slash commands arrive as text and are answered by the host", "[e2e][slack]") {
  Fixture f;
  GantryProcess gantry(f.env());
  INFO(gantry.err());
  REQUIRE(f.connected());
  f.dm("/new");
  REQUIRE(f.waitPosted("New session"));
  CHECK(f.llm.requests().empty());
}
