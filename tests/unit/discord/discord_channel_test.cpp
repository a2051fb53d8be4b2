// The Discord channel in-process against FakeDiscord (a loopback Gateway + REST server).

#include "discord_channel.h"

#include <atomic>
#include <catch2/catch.hpp>
#include <condition_variable>
#include <cstdio>
#include <cstdlib>
#include <mutex>
#include <thread>
#include <utility>

#include "fake_discord.h"
#include "fakes/fake_host.h"

namespace gantry::discord {
namespace {

using testing::FakeDiscord;
using testing::FakeHost;
using Stats = FakeDiscord::Stats;
using SentList = std::vector<FakeDiscord::Sent>;

constexpr const char* kOwner = "111111111111111111";
constexpr const char* kStranger = "222222222222222222";
constexpr auto kLong = std::chrono::seconds(20);

class CollectingSink final : public InboundSink {
 public:
  void onMessage(InboundMessage message) noexcept override {
    std::lock_guard lock(mutex_);
    messages_.push_back(std::move(message));
    cv_.notify_all();
  }
  bool waitForCount(std::size_t count) {
    std::unique_lock lock(mutex_);
    return cv_.wait_for(lock, kLong, [&] { return messages_.size() >= count; });
  }
  std::vector<InboundMessage> messages() {
    std::lock_guard lock(mutex_);
    return messages_;
  }

 private:
  std::mutex mutex_;
  std::condition_variable cv_;
  std::vector<InboundMessage> messages_;
};

FakeDiscord::Options fastOptions() {
  FakeDiscord::Options options;
  options.heartbeat_interval_ms = 300;
  return options;
}

/// A fake Discord, a channel configured against it, and run() on its own thread.
struct Rig {
  explicit Rig(FakeDiscord::Options options = fastOptions(), bool with_gateway_url = true)
      : fake(std::move(options)) {
    host.env["DISCORD_BOT_TOKEN"] = FakeDiscord::Options{}.token;
    host.env["DISCORD_ALLOWED_USERS"] = kOwner;
    host.env["DISCORD_API_BASE"] = fake.apiBase();
    if (with_gateway_url) host.env["DISCORD_GATEWAY_URL"] = fake.gatewayUrl();
  }
  ~Rig() {
    if (channel) channel->stop();
    if (runner.joinable()) runner.join();
    if (std::getenv("DISCORD_TEST_LOGS") == nullptr) return;
    for (const auto& line : host.lines()) {
      std::string fields;
      for (const auto& [key, value] : line.fields)
        fields.append(" ").append(key).append("=").append(value);
      std::fprintf(stderr, "log: %s%s\n", line.msg.c_str(), fields.c_str());
    }
  }
  void start() {
    auto config = readConfig(host);
    REQUIRE(config.isOk());
    channel = std::make_unique<DiscordChannel>(host, config.value());
    runner = std::thread([this] {
      result = channel->run(sink);
      finished = true;
    });
  }
  bool waitReady(int resumes = 0, int identifies = 1) {
    return fake.waitUntil(
        [&](const Stats& s, const SentList&) {
          return s.ready && s.resumes >= resumes && s.identifies >= identifies;
        },
        kLong);
  }
  std::string dm(const std::string& text, const std::string& author = kOwner) {
    FakeDiscord::MessageSpec spec;
    spec.author_id = author;
    spec.content = text;
    return fake.dispatch(spec);
  }
  Status waitResult() {
    for (int i = 0; i < 400 && !finished; ++i) {
      std::this_thread::sleep_for(std::chrono::milliseconds(50));
    }
    REQUIRE(finished);
    runner.join();
    return result;
  }

  FakeDiscord fake;
  FakeHost host;
  CollectingSink sink;
  std::unique_ptr<DiscordChannel> channel;
  std::thread runner;
  Status result;
  std::atomic<bool> finished{false};
};

std::vector<std::string> texts(const std::vector<InboundMessage>& messages) {
  std::vector<std::string> out;
  out.reserve(messages.size());
  for (const auto& message : messages) out.push_back(message.text);
  return out;
}

}  // namespace

TEST_CASE("the channel identifies over v10 JSON with DM and message-content intents", "[discord]") {
  Rig rig;
  rig.start();
  REQUIRE(rig.waitReady());
  Stats stats = rig.fake.stats();
  CHECK(stats.paths.at(0) == "/gateway?v=10&encoding=json");
  auto identify = stats.last_identify;
  CHECK(identify.find("\"intents\":36864") != std::string::npos);
  CHECK(identify.find(FakeDiscord::Options{}.token) != std::string::npos);
}

TEST_CASE("heartbeats carry the last sequence and are acknowledged without reconnecting",
          "[discord]") {
  Rig rig;
  rig.start();
  REQUIRE(rig.waitReady());
  REQUIRE(rig.fake.waitUntil([](const Stats& s, const SentList&) { return s.heartbeats >= 3; }));
  Stats stats = rig.fake.stats();
  CHECK(stats.last_heartbeat_seq >= 1);  // READY was dispatch 1
  CHECK(stats.connections == 1);
  CHECK(stats.resumes == 0);
}

TEST_CASE("a heartbeat that is not acknowledged makes the channel reconnect and resume",
          "[discord]") {
  Rig rig;
  rig.start();
  REQUIRE(rig.waitReady());
  rig.fake.withholdAcks(true);
  REQUIRE(rig.fake.waitUntil([](const Stats& s, const SentList&) { return s.resumes >= 1; }));
  rig.fake.withholdAcks(false);
  REQUIRE(rig.waitReady(1));
  Stats stats = rig.fake.stats();
  REQUIRE_FALSE(stats.client_close_codes.empty());
  CHECK(stats.client_close_codes.front() != 1000);
  CHECK(stats.paths.back() == "/resume?v=10&encoding=json");
  CHECK(stats.identifies == 1);
  rig.dm("still there?");
  REQUIRE(rig.sink.waitForCount(1));
}

TEST_CASE("op 7 reconnect resumes without losing or duplicating messages", "[discord]") {
  Rig rig;
  rig.start();
  REQUIRE(rig.waitReady());
  rig.dm("one");
  REQUIRE(rig.sink.waitForCount(1));
  rig.fake.reconnect();
  rig.dm("two");
  rig.dm("three");
  REQUIRE(rig.waitReady(1));
  rig.dm("four");
  // The gateway delivers in order: a duplicate from the resume would arrive before "five".
  rig.dm("five");
  REQUIRE(rig.sink.waitForCount(5));
  CHECK(texts(rig.sink.messages()) ==
        std::vector<std::string>{"one", "two", "three", "four", "five"});
  CHECK(rig.fake.stats().identifies == 1);
}

TEST_CASE("a message id seen twice is delivered once", "[discord]") {
  Rig rig;
  rig.start();
  REQUIRE(rig.waitReady());
  FakeDiscord::MessageSpec spec;
  spec.id = "1234567890";
  spec.author_id = kOwner;
  spec.content = "once";
  rig.fake.dispatch(spec);
  rig.fake.dispatch(spec);
  rig.dm("after");
  REQUIRE(rig.sink.waitForCount(2));
  CHECK(texts(rig.sink.messages()) == std::vector<std::string>{"once", "after"});
}

TEST_CASE("op 9 with a resumable session resumes it", "[discord]") {
  Rig rig;
  rig.start();
  REQUIRE(rig.waitReady());
  rig.fake.invalidSession(true);
  REQUIRE(rig.waitReady(1));
  CHECK(rig.fake.stats().identifies == 1);
}

TEST_CASE("op 9 without a resumable session leads to a fresh identify", "[discord]") {
  Rig rig;
  rig.start();
  REQUIRE(rig.waitReady());
  rig.fake.invalidSession(false);
  REQUIRE(rig.waitReady(0, 2));
  CHECK(rig.fake.stats().resumes == 0);
  rig.dm("new session");
  REQUIRE(rig.sink.waitForCount(1));
}

TEST_CASE("a non-fatal close code reconnects and resumes", "[discord]") {
  Rig rig;
  rig.start();
  REQUIRE(rig.waitReady());
  rig.fake.closeWith(4000);
  REQUIRE(rig.waitReady(1));
  CHECK(rig.fake.stats().identifies == 1);
}

TEST_CASE("a wrong token ends run with a clear 4004 error", "[discord]") {
  Rig rig;
  rig.host.env["DISCORD_BOT_TOKEN"] = "wrong";
  rig.start();
  Status status = rig.waitResult();
  CHECK_FALSE(status.isOk());
  CHECK(status.message().find("4004") != std::string::npos);
  CHECK(status.message().find("DISCORD_BOT_TOKEN") != std::string::npos);
  CHECK(rig.fake.stats().connections == 1);
}

TEST_CASE("disallowed intents end run with advice to enable MESSAGE CONTENT", "[discord]") {
  FakeDiscord::Options options = fastOptions();
  options.message_content_intent_enabled = false;
  Rig rig(options);
  rig.start();
  Status status = rig.waitResult();
  CHECK(status.message().find("4014") != std::string::npos);
  CHECK(status.message().find("MESSAGE CONTENT") != std::string::npos);
}

TEST_CASE("without DISCORD_GATEWAY_URL the gateway comes from GET /gateway/bot", "[discord]") {
  Rig rig(fastOptions(), false);
  rig.start();
  REQUIRE(rig.waitReady());
  CHECK(rig.fake.stats().paths.at(0) == "/?v=10&encoding=json");
}

TEST_CASE("a rejected token at GET /gateway/bot is a clear run error", "[discord]") {
  Rig rig(fastOptions(), false);
  rig.host.env["DISCORD_BOT_TOKEN"] = "wrong";
  rig.start();
  Status status = rig.waitResult();
  CHECK(status.message() == "discord: GET /gateway/bot: HTTP 401 (check DISCORD_BOT_TOKEN)");
}

TEST_CASE("a DM from an allowlisted user is delivered with its fields", "[discord]") {
  Rig rig;
  rig.start();
  REQUIRE(rig.waitReady());
  FakeDiscord::MessageSpec spec;
  spec.author_id = kOwner;
  spec.author_name = "Owner";
  spec.content = "hello bot";
  spec.attachment_url = rig.fake.addAttachment("cat.png", "PNGDATA");
  std::string id = rig.fake.dispatch(spec);
  REQUIRE(rig.sink.waitForCount(1));
  InboundMessage message = rig.sink.messages().at(0);
  CHECK(message.chat_id == spec.channel_id);
  CHECK(message.sender_id == kOwner);
  CHECK(message.sender_name == "Owner");
  CHECK(message.text == "hello bot");
  CHECK(message.message_id == id);
  REQUIRE(message.images.size() == 1);
  CHECK(message.images[0].mime_type == "image/png");
  CHECK(message.images[0].data_base64 == "UE5HREFUQQ==");
}

TEST_CASE("strangers, bots, guild messages and the bot's own messages are ignored", "[discord]") {
  Rig rig;
  rig.start();
  REQUIRE(rig.waitReady());
  rig.dm("from a stranger", kStranger);
  FakeDiscord::MessageSpec bot;
  bot.author_id = "333333333333333333";
  bot.bot = true;
  bot.content = "from a bot";
  rig.fake.dispatch(bot);
  FakeDiscord::MessageSpec guild;
  guild.author_id = kOwner;
  guild.guild_id = "444444444444444444";
  guild.content = "in a server";
  rig.fake.dispatch(guild);
  rig.dm("from myself", FakeDiscord::Options{}.bot_user_id);
  rig.dm("from the owner");
  // The gateway delivers in order: anything admitted before the owner's DM arrived before it.
  REQUIRE(rig.sink.waitForCount(1));
  CHECK(texts(rig.sink.messages()) == std::vector<std::string>{"from the owner"});
  CHECK(rig.host.logged("DISCORD_ALLOWED_USERS"));
}

TEST_CASE("a long reply is split at 2000 characters and the last id returned", "[discord]") {
  Rig rig;
  rig.start();
  std::string text;
  while (text.size() < 4500) text += "word ";
  auto id = rig.channel->send("555", text);
  REQUIRE(id.isOk());
  SentList sent = rig.fake.sent();
  REQUIRE(sent.size() == 3);
  std::size_t total = 0;
  for (const auto& message : sent) {
    CHECK(message.content.size() <= 2000);
    CHECK(message.channel_id == "555");
    total += message.content.size();
  }
  CHECK(total >= 4400);
  CHECK(id.value() == sent.back().id);
}

TEST_CASE("a 429 is retried after retry_after and the message sent once", "[discord]") {
  Rig rig;
  rig.start();
  rig.fake.rateLimitNext(2, 0.2);
  auto id = rig.channel->send("555", "patience");
  REQUIRE(id.isOk());
  CHECK(rig.fake.stats().rate_limited == 2);
  REQUIRE(rig.fake.sent().size() == 1);
  CHECK(rig.fake.sent()[0].content == "patience");
  CHECK(rig.host.logged("rate limited"));
}

TEST_CASE("an exhausted bucket is waited out before the next request", "[discord]") {
  FakeDiscord::Options options = fastOptions();
  options.bucket_limit = 2;
  options.bucket_window_s = 0.3;
  Rig rig(options);
  rig.start();
  for (int i = 0; i < 5; ++i) REQUIRE(rig.channel->send("555", "n" + std::to_string(i)).isOk());
  CHECK(rig.fake.sent().size() == 5);
  CHECK(rig.fake.stats().bucket_violations == 0);
}

TEST_CASE("edit replaces the text of a sent message", "[discord]") {
  Rig rig;
  rig.start();
  auto id = rig.channel->send("555", "draft");
  REQUIRE(id.isOk());
  REQUIRE(rig.channel->edit("555", id.value(), "final").isOk());
  SentList sent = rig.fake.sent();
  REQUIRE(sent.size() == 1);
  CHECK(sent[0].content == "final");
  CHECK(sent[0].edits == 1);
  Status missing = rig.channel->edit("555", "999", "x");
  CHECK_FALSE(missing.isOk());
  CHECK(missing.message().find("Unknown Message") != std::string::npos);
}

TEST_CASE("typing, photo by URL and photo upload reach the REST API", "[discord]") {
  Rig rig;
  rig.start();
  REQUIRE(rig.channel->typing("555").isOk());
  CHECK(rig.fake.stats().typing == 1);
  auto by_url = rig.channel->sendPhoto("555", Image{"", "", "https://x/y.png"}, "look");
  REQUIRE(by_url.isOk());
  auto upload = rig.channel->sendPhoto("555", Image{"image/png", "UE5HREFUQQ==", ""}, "mine");
  REQUIRE(upload.isOk());
  SentList sent = rig.fake.sent();
  REQUIRE(sent.size() == 2);
  CHECK(sent[0].body.find("https://x/y.png") != std::string::npos);
  CHECK(sent[1].upload);
  CHECK(sent[1].content == "mine");
}

TEST_CASE("stop makes run return and closes the session normally", "[discord]") {
  Rig rig;
  rig.start();
  REQUIRE(rig.waitReady());
  rig.channel->stop();
  Status status = rig.waitResult();
  CHECK(status.isOk());
  REQUIRE(rig.fake.waitUntil(
      [](const Stats& s, const SentList&) { return !s.client_close_codes.empty(); }));
  CHECK(rig.fake.stats().client_close_codes.back() == 1000);
}

TEST_CASE("caps report 2000 characters, edits and a replayed inbox", "[discord]") {
  Rig rig;
  auto config = readConfig(rig.host);
  REQUIRE(config.isOk());
  DiscordChannel channel(rig.host, config.value());
  ChannelCaps caps = channel.caps();
  CHECK(caps.max_message_chars == 2000);
  CHECK(caps.can_edit);
  CHECK(caps.replays_inbox);
  CHECK(caps.shows_typing);
}

TEST_CASE("a missing or malformed allowlist fails the factory", "[discord]") {
  FakeHost host;
  host.env["DISCORD_BOT_TOKEN"] = "t";
  host.env["DISCORD_ALLOWED_USERS"] = "";
  CHECK_FALSE(readConfig(host).isOk());
  host.env["DISCORD_ALLOWED_USERS"] = "ada";
  auto bad = readConfig(host);
  REQUIRE_FALSE(bad.isOk());
  CHECK(bad.status().message().find("DISCORD_ALLOWED_USERS") != std::string::npos);
}

}  // namespace gantry::discord

namespace gantry::discord {

TEST_CASE("typing is one attempt that never waits out a rate limit", "[discord]") {
  Rig rig;
  rig.start();
  rig.fake.rateLimitNext(1, 30.0);
  Status status = rig.channel->typing("555");
  CHECK(status.retryable());
  CHECK(rig.fake.stats().rate_limited == 1);
  CHECK(rig.channel->typing("555").retryable());  // the bucket is still blocked: not sent
  CHECK(rig.fake.stats().rate_limited == 1);
  CHECK(rig.fake.stats().typing == 0);
}

}  // namespace gantry::discord

namespace gantry::discord {

TEST_CASE("a heartbeat request from the gateway is answered at once", "[discord]") {
  FakeDiscord::Options options = fastOptions();
  options.heartbeat_interval_ms = 600000;  // the scheduled beat is minutes away
  Rig rig(options);
  rig.start();
  REQUIRE(rig.waitReady());
  int before = rig.fake.stats().heartbeats;
  rig.fake.requestHeartbeat();
  REQUIRE(
      rig.fake.waitUntil([&](const Stats& s, const SentList&) { return s.heartbeats > before; }));
  CHECK(rig.fake.stats().last_heartbeat_seq == 1);
}

}  // namespace gantry::discord
