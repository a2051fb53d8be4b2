// The Slack channel in-process against FakeSlack (Web API + Socket Mode on loopback).

#include "slack_channel.h"

#include <catch2/catch.hpp>
#include <mutex>
#include <thread>
#include <vector>

#include "fake_slack.h"
#include "fakes/fake_host.h"

using gantry::InboundMessage;
using gantry::fakes::FakeSlack;
using gantry::testing::FakeHost;
using namespace std::chrono_literals;

namespace {

constexpr const char* kOwner = "U0OWNER";

class Sink final : public gantry::InboundSink {
 public:
  void onMessage(InboundMessage message) noexcept override {
    std::lock_guard lock(mutex_);
    messages_.push_back(std::move(message));
  }
  std::vector<InboundMessage> messages() const {
    std::lock_guard lock(mutex_);
    return messages_;
  }
  std::size_t count() const { return messages().size(); }

 private:
  mutable std::mutex mutex_;
  std::vector<InboundMessage> messages_;
};

// A SlackChannel wired to a FakeSlack, its run() loop on a thread.
struct Rig {
  FakeSlack fake;
  FakeHost host;
  Sink sink;
  std::unique_ptr<gantry::slack::SlackChannel> channel;
  std::thread runner;
  gantry::Status result;

  explicit Rig(FakeSlack::Options options = {}) : fake(std::move(options)) {
    host.env["SLACK_BOT_TOKEN"] = fake.options().bot_token;
    host.env["SLACK_APP_TOKEN"] = fake.options().app_token;
    host.env["SLACK_ALLOWED_USERS"] = kOwner;
    host.env["SLACK_API_BASE"] = fake.apiBase();
  }
  ~Rig() { finish(); }

  void start() {
    auto config = gantry::slack::readConfig(host);
    REQUIRE(config.isOk());
    channel = std::make_unique<gantry::slack::SlackChannel>(host, config.value());
    runner = std::thread([this] { result = channel->run(sink); });
  }
  void finish() {
    if (channel) channel->stop();
    if (runner.joinable()) runner.join();
  }
  bool connected(int sockets = 1) {
    return FakeSlack::waitFor([&] { return fake.stats().sockets_accepted >= sockets; });
  }
  std::string dm(const std::string& text);
};

FakeSlack::Event makeEvent(const std::string& user, const std::string& text) {
  FakeSlack::Event event;
  event.user = user;
  event.text = text;
  return event;
}

std::vector<std::string> texts(const std::vector<InboundMessage>& messages) {
  std::vector<std::string> out;
  out.reserve(messages.size());
  for (const auto& message : messages) out.push_back(message.text);
  return out;
}

std::string Rig::dm(const std::string& text) { return fake.enqueue(makeEvent(kOwner, text)); }

}  // namespace

TEST_CASE("a DM from the owner is delivered and its envelope acked", "[slack]") {
  Rig rig;
  rig.start();
  REQUIRE(rig.connected());
  rig.dm("hello there");
  REQUIRE(FakeSlack::waitFor([&] { return rig.sink.count() == 1; }));
  auto message = rig.sink.messages()[0];
  CHECK(message.text == "hello there");
  CHECK(message.chat_id == std::string("D") + kOwner);
  CHECK(message.sender_id == kOwner);
  CHECK(FakeSlack::waitFor([&] { return rig.fake.stats().acks == 1; }));
  CHECK(rig.fake.stats().unacked.empty());
}

TEST_CASE("strangers, bots and edits are acked but never delivered", "[slack]") {
  Rig rig;
  rig.start();
  REQUIRE(rig.connected());
  rig.fake.enqueue(makeEvent("U0STRANGER", "let me in"));
  auto bot = makeEvent(kOwner, "bot says");
  bot.bot_id = "B0OTHER";
  rig.fake.enqueue(bot);
  auto edit = makeEvent(kOwner, "edited");
  edit.subtype = "message_changed";
  rig.fake.enqueue(edit);
  auto public_message = makeEvent(kOwner, "in a channel");
  public_message.channel = "C0PUBLIC";
  public_message.channel_type = "channel";
  rig.fake.enqueue(public_message);
  rig.dm("last");
  REQUIRE(FakeSlack::waitFor([&] { return rig.sink.count() >= 1; }));
  REQUIRE(FakeSlack::waitFor([&] { return rig.fake.stats().acks == 5; }));
  CHECK(texts(rig.sink.messages()) == std::vector<std::string>{"last"});
  CHECK(rig.host.logged("SLACK_ALLOWED_USERS"));
}

TEST_CASE("a redelivered envelope is handled once", "[slack]") {
  Rig rig;
  rig.start();
  REQUIRE(rig.connected());
  auto event = makeEvent(kOwner, "only once");
  event.deliveries = 3;
  rig.fake.enqueue(event);
  REQUIRE(FakeSlack::waitFor([&] { return rig.fake.stats().deliveries == 3; }));
  rig.dm("after");
  REQUIRE(FakeSlack::waitFor([&] { return rig.sink.count() >= 2; }));
  CHECK(texts(rig.sink.messages()) == std::vector<std::string>{"only once", "after"});
}

TEST_CASE("a refresh disconnect opens a new connection and loses or duplicates nothing",
          "[slack]") {
  Rig rig;
  rig.start();
  REQUIRE(rig.connected());
  rig.dm("one");
  REQUIRE(FakeSlack::waitFor([&] { return rig.sink.count() == 1; }));
  rig.fake.disconnect("refresh_requested");
  rig.dm("two");  // sent on the old socket while it is being replaced
  REQUIRE(rig.connected(2));
  REQUIRE(FakeSlack::waitFor([&] { return rig.fake.stats().live_sockets == 1; }));
  rig.dm("three");
  REQUIRE(FakeSlack::waitFor([&] { return rig.sink.count() >= 3; }));
  std::this_thread::sleep_for(300ms);  // room for a wrongful duplicate to show up
  CHECK(texts(rig.sink.messages()) == std::vector<std::string>{"one", "two", "three"});
  CHECK(rig.fake.stats().connections_opened == 2);
  CHECK(rig.fake.stats().max_live_sockets == 2);  // the new socket opened before the old closed
  CHECK(FakeSlack::waitFor([&] { return rig.fake.stats().unacked.empty(); }));
}

TEST_CASE("a dropped socket reconnects and later messages arrive", "[slack]") {
  Rig rig;
  rig.start();
  REQUIRE(rig.connected());
  rig.fake.dropSocket();
  REQUIRE(rig.connected(2));
  rig.dm("after the drop");
  REQUIRE(FakeSlack::waitFor([&] { return rig.sink.count() == 1; }));
  CHECK(rig.sink.messages()[0].text == "after the drop");
}

TEST_CASE("link_disabled ends run() with a clear error", "[slack]") {
  Rig rig;
  rig.start();
  REQUIRE(rig.connected());
  rig.fake.disconnect("link_disabled");
  rig.runner.join();
  CHECK_FALSE(rig.result.isOk());
  CHECK(rig.result.message().find("link_disabled") != std::string::npos);
}

TEST_CASE("a long reply is split below the limit and the last ts is returned", "[slack]") {
  Rig rig;
  rig.start();
  REQUIRE(rig.connected());
  rig.dm("write a lot");
  REQUIRE(FakeSlack::waitFor([&] { return rig.sink.count() == 1; }));
  std::string text;
  for (int i = 0; i < 300; ++i) text += "Paragraph " + std::to_string(i) + " of the reply.\n\n";
  auto sent = rig.channel->send(rig.sink.messages()[0].chat_id, text);
  REQUIRE(sent.isOk());
  auto posted = rig.fake.messages();
  REQUIRE(posted.size() >= 2);
  for (const auto& message : posted) CHECK(message.text.size() <= gantry::slack::kMaxMessageChars);
  CHECK(sent.value() == posted.back().ts);
}

TEST_CASE("edit updates the sent message with mrkdwn", "[slack]") {
  Rig rig;
  rig.start();
  REQUIRE(rig.connected());
  rig.dm("hi");
  REQUIRE(FakeSlack::waitFor([&] { return rig.sink.count() == 1; }));
  auto chat = rig.sink.messages()[0].chat_id;
  auto sent = rig.channel->send(chat, "thinking");
  REQUIRE(sent.isOk());
  REQUIRE(rig.channel->edit(chat, sent.value(), "**done** & dusted").isOk());
  auto posted = rig.fake.messages();
  REQUIRE(posted.size() == 1);
  CHECK(posted[0].edits == std::vector<std::string>{"*done* &amp; dusted"});
}

TEST_CASE("HTTP 429 with Retry-After is waited out and the message still goes out", "[slack]") {
  Rig rig;
  rig.start();
  REQUIRE(rig.connected());
  rig.dm("hi");
  REQUIRE(FakeSlack::waitFor([&] { return rig.sink.count() == 1; }));
  rig.fake.scriptError("chat.postMessage", 429, "", 1, 2);
  auto sent = rig.channel->send(rig.sink.messages()[0].chat_id, "patience");
  REQUIRE(sent.isOk());
  CHECK(rig.fake.messages().size() == 1);
  CHECK(rig.fake.stats().calls["chat.postMessage"] == 3);
}

TEST_CASE("ok:false from chat.postMessage is an error carrying Slack's code", "[slack]") {
  Rig rig;
  rig.start();
  REQUIRE(rig.connected());
  auto sent = rig.channel->send("D0NOWHERE", "hello?");
  REQUIRE_FALSE(sent.isOk());
  CHECK(sent.status().message().find("channel_not_found") != std::string::npos);
}

TEST_CASE("an invalid bot token fails run() naming SLACK_BOT_TOKEN", "[slack]") {
  Rig rig;
  rig.host.env["SLACK_BOT_TOKEN"] = "xoxb-wrong";
  rig.start();
  rig.runner.join();
  REQUIRE_FALSE(rig.result.isOk());
  CHECK(rig.result.message().find("invalid_auth") != std::string::npos);
  CHECK(rig.result.message().find("SLACK_BOT_TOKEN") != std::string::npos);
}

TEST_CASE("an invalid app token fails run() naming SLACK_APP_TOKEN", "[slack]") {
  Rig rig;
  rig.fake.scriptError("apps.connections.open", 200, "invalid_auth");
  rig.start();
  rig.runner.join();
  REQUIRE_FALSE(rig.result.isOk());
  CHECK(rig.result.message().find("invalid_auth") != std::string::npos);
  CHECK(rig.result.message().find("SLACK_APP_TOKEN") != std::string::npos);
}

TEST_CASE("tokens of the wrong kind and an empty allowlist fail configuration", "[slack]") {
  FakeHost host;
  host.env["SLACK_BOT_TOKEN"] = "xapp-oops";
  host.env["SLACK_APP_TOKEN"] = "xapp-1";
  host.env["SLACK_ALLOWED_USERS"] = kOwner;
  auto config = gantry::slack::readConfig(host);
  REQUIRE_FALSE(config.isOk());
  CHECK(config.status().message().find("SLACK_BOT_TOKEN") != std::string::npos);
  host.env["SLACK_BOT_TOKEN"] = "xoxb-1";
  host.env["SLACK_ALLOWED_USERS"] = "";
  config = gantry::slack::readConfig(host);
  REQUIRE_FALSE(config.isOk());
  CHECK(config.status().message().find("SLACK_ALLOWED_USERS") != std::string::npos);
}

TEST_CASE("an image sent in a DM is downloaded with the bot token", "[slack]") {
  Rig rig;
  rig.fake.putFile("F0PIC", "image/png", "PNGBYTES");
  rig.start();
  REQUIRE(rig.connected());
  auto event = makeEvent(kOwner, "look");
  event.subtype = "file_share";
  event.file_ids = {"F0PIC"};
  rig.fake.enqueue(event);
  REQUIRE(FakeSlack::waitFor([&] { return rig.sink.count() == 1; }));
  auto message = rig.sink.messages()[0];
  REQUIRE(message.images.size() == 1);
  CHECK(message.images[0].mime_type == "image/png");
  CHECK(message.images[0].data_base64 == "UE5HQllURVM=");
}

TEST_CASE("stop() ends run() promptly and closes the socket", "[slack]") {
  Rig rig;
  rig.start();
  REQUIRE(rig.connected());
  rig.finish();
  CHECK(rig.result.isOk());
  CHECK(FakeSlack::waitFor([&] { return rig.fake.stats().live_sockets == 0; }));
}

TEST_CASE("ok:false ratelimited and HTTP 5xx are retried until the call succeeds", "[slack]") {
  Rig rig;
  rig.start();
  REQUIRE(rig.connected());
  rig.dm("hi");
  REQUIRE(FakeSlack::waitFor([&] { return rig.sink.count() == 1; }));
  auto chat = rig.sink.messages()[0].chat_id;
  rig.fake.scriptError("chat.postMessage", 503, "service_unavailable");
  auto sent = rig.channel->send(chat, "first");
  REQUIRE(sent.isOk());
  rig.fake.scriptError("chat.update", 200, "ratelimited");
  REQUIRE(rig.channel->edit(chat, sent.value(), "second").isOk());
  auto posted = rig.fake.messages();
  REQUIRE(posted.size() == 1);
  CHECK(posted[0].edits == std::vector<std::string>{"second"});
  CHECK(rig.fake.stats().calls["chat.update"] == 2);
}
