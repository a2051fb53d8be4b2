// The channel against the fake Bot API, in-process, with a FakeHost.

#include "telegram_channel.h"

#include <Poco/Base64Decoder.h>
#include <Poco/StreamCopier.h>

#include <catch2/catch.hpp>
#include <condition_variable>
#include <sstream>
#include <thread>

#include "fake_telegram.h"
#include "fakes/fake_host.h"

using gantry::InboundMessage;
using gantry::Status;
using gantry::fakes::FakeTelegram;
using gantry::fakes::Fault;
using gantry::telegram::Options;
using gantry::telegram::TelegramChannel;
using gantry::testing::FakeHost;

namespace {

constexpr std::int64_t kOwner = 111;

class Sink final : public gantry::InboundSink {
 public:
  void onMessage(InboundMessage message) noexcept override {
    std::lock_guard lock(mutex_);
    messages_.push_back(std::move(message));
    changed_.notify_all();
  }
  void onMessages(std::vector<InboundMessage> messages) noexcept override {
    {
      std::lock_guard lock(mutex_);
      batches_.push_back(messages.size());
    }
    InboundSink::onMessages(std::move(messages));
  }
  void onReceiveOk() noexcept override { ++receive_ok; }
  /// The size of each handover of messages received together, in order.
  std::vector<std::size_t> batches() {
    std::lock_guard lock(mutex_);
    return batches_;
  }
  /// Waits (generously) for n messages and returns what arrived.
  std::vector<InboundMessage> wait(std::size_t n) {
    std::unique_lock lock(mutex_);
    changed_.wait_for(lock, std::chrono::seconds(20), [&] { return messages_.size() >= n; });
    return messages_;
  }

 private:
  std::mutex mutex_;
  std::condition_variable changed_;
  std::vector<InboundMessage> messages_;
  std::vector<std::size_t> batches_;

 public:
  std::atomic<int> receive_ok{0};
};

// A channel whose receive loop runs on its own thread until stopped.
class Running {
 public:
  Running(FakeHost& host, Sink& sink, int poll_timeout = 2) {
    Options options;
    std::string err;
    REQUIRE(gantry::telegram::optionsFromHost(host, &options, &err));
    options.poll_timeout_seconds = poll_timeout;
    options.backoff_initial = std::chrono::milliseconds(10);
    options.backoff_max = std::chrono::milliseconds(50);
    channel = std::make_unique<TelegramChannel>(host, std::move(options));
    thread_ = std::thread([this, &sink] { result_ = channel->run(sink); });
  }
  ~Running() { finish(); }
  Status finish() {
    channel->stop();
    if (thread_.joinable()) thread_.join();
    return result_;
  }
  /// Waits for run() to return on its own.
  Status join() {
    if (thread_.joinable()) thread_.join();
    return result_;
  }

  std::unique_ptr<TelegramChannel> channel;

 private:
  std::thread thread_;
  Status result_;
};

struct Fixture {
  Fixture() {
    fake.start();
    host.env["TELEGRAM_BOT_TOKEN"] = fake.token();
    host.env["TELEGRAM_ALLOWED_USERS"] = std::to_string(kOwner) + ",222";
    host.env["TELEGRAM_API_BASE"] = fake.apiBase();
  }
  FakeTelegram fake;
  FakeHost host;
  Sink sink;
};

std::string fromBase64(const std::string& text) {
  std::istringstream in(text);
  Poco::Base64Decoder decoder(in);
  std::string bytes;
  Poco::StreamCopier::copyToString(decoder, bytes);
  return bytes;
}

}  // namespace

TEST_CASE("a message from an allowlisted user arrives and the reply is sent as HTML",
          "[telegram][channel]") {
  Fixture f;
  Running running(f.host, f.sink);
  f.fake.enqueueText(kOwner, "hello");
  auto got = f.sink.wait(1);
  REQUIRE(got.size() == 1);
  CHECK(got[0].text == "hello");
  CHECK(got[0].chat_id == "111");
  CHECK(got[0].sender_id == "111");
  CHECK(got[0].sender_name == "User111");
  CHECK(f.sink.receive_ok > 0);
  auto id = running.channel->send(got[0].chat_id, "**hi** there");
  REQUIRE(id.isOk());
  auto sent = f.fake.sent("sendMessage");
  REQUIRE(sent.size() == 1);
  CHECK(sent[0].text == "<b>hi</b> there");
  CHECK(sent[0].parse_mode == "HTML");
  CHECK(sent[0].message_id == id.value());
}

TEST_CASE("a stranger's message never reaches the sink and is logged", "[telegram][channel]") {
  Fixture f;
  Running running(f.host, f.sink);
  f.fake.enqueueText(999, "let me in");
  f.fake.enqueueText(kOwner, "group hello", "group");
  f.fake.enqueueText(kOwner, "owner");
  auto got = f.sink.wait(1);
  running.finish();
  REQUIRE(got.size() == 1);
  CHECK(got[0].text == "owner");
  CHECK(f.host.logged("not in TELEGRAM_ALLOWED_USERS"));
  CHECK(f.host.logged("outside a private chat"));
}

TEST_CASE("a long reply is split into messages within Telegram's limit", "[telegram][channel]") {
  Fixture f;
  Running running(f.host, f.sink);
  std::string reply;
  for (int k = 0; k < 600; ++k) reply += "Line " + std::to_string(k) + " with **bold** text.\n";
  auto last = running.channel->send("111", reply);
  REQUIRE(last.isOk());
  auto sent = f.fake.sent("sendMessage");
  REQUIRE(sent.size() >= 4);
  CHECK(sent.back().message_id == last.value());
  std::string all;
  for (const auto& message : sent) {
    std::string visible;
    std::string error;
    REQUIRE(gantry::fakes::parseTelegramHtml(message.text, &visible, &error));
    CHECK(gantry::fakes::utf16Length(visible) <= 4096);
    all += visible;
  }
  CHECK(all.find("Line 0 with bold text.") != std::string::npos);
  CHECK(all.find("Line 599 with bold text.") != std::string::npos);
}

TEST_CASE("a reply whose entities Telegram rejects is resent as plain text",
          "[telegram][channel]") {
  Fixture f;
  Running running(f.host, f.sink);
  f.fake.addFault(
      {"sendMessage", 400,
       "Bad Request: can't parse entities: Unsupported start tag \"x\" at byte offset 0", 0, false,
       1});
  REQUIRE(running.channel->send("111", "**hi**").isOk());
  auto sent = f.fake.sent("sendMessage");
  REQUIRE(sent.size() == 1);
  CHECK(sent[0].text == "**hi**");
  CHECK(sent[0].parse_mode.empty());
}

TEST_CASE("a 429 storm delays replies but loses none", "[telegram][channel]") {
  Fixture f;
  Running running(f.host, f.sink);
  f.fake.addFault({"sendMessage", 429, "", 1, false, 3});
  REQUIRE(running.channel->send("111", "first").isOk());
  REQUIRE(running.channel->send("111", "second").isOk());
  auto sent = f.fake.sent("sendMessage");
  REQUIRE(sent.size() == 2);
  CHECK(sent[0].text == "first");
  CHECK(sent[1].text == "second");
  CHECK(f.fake.calls("sendMessage") == 5);
}

TEST_CASE("server errors and dropped connections are retried", "[telegram][channel]") {
  Fixture f;
  Running running(f.host, f.sink);
  f.fake.addFault({"sendMessage", 502, "", 0, false, 1});
  f.fake.addFault({"sendMessage", 0, "", 0, true, 1});
  REQUIRE(running.channel->send("111", "made it").isOk());
  CHECK(f.fake.sent("sendMessage").size() == 1);
  f.fake.addFault({"getUpdates", 500, "", 0, false, 2});
  f.fake.addFault({"getUpdates", 0, "", 0, true, 1});
  f.fake.enqueueText(kOwner, "after faults");
  REQUIRE(f.sink.wait(1).size() == 1);
}

TEST_CASE("the offset is persisted so a restart does not handle an update twice",
          "[telegram][channel]") {
  Fixture f;
  std::int64_t first = 0;
  {
    Running running(f.host, f.sink);
    first = f.fake.enqueueText(kOwner, "one");
    REQUIRE(f.sink.wait(1).size() == 1);
    running.finish();
  }
  CHECK(f.host.state["offset"] == std::to_string(first + 1));
  Sink second_sink;
  Running restarted(f.host, second_sink);
  f.fake.enqueueText(kOwner, "two");
  auto got = second_sink.wait(1);
  restarted.finish();
  REQUIRE(got.size() == 1);
  CHECK(got[0].text == "two");
}

TEST_CASE("the updates of one poll are handed over together, strangers left out",
          "[telegram][channel]") {
  Fixture f;
  f.fake.enqueueText(kOwner, "one");
  f.fake.enqueueText(999, "stranger");
  std::int64_t last = f.fake.enqueueText(kOwner, "two");
  Running running(f.host, f.sink);
  auto got = f.sink.wait(2);
  running.finish();
  REQUIRE(got.size() == 2);
  CHECK(got[0].text == "one");
  CHECK(got[1].text == "two");
  CHECK(f.sink.batches() == std::vector<std::size_t>{2});
  CHECK(f.host.state["offset"] == std::to_string(last + 1));
}

TEST_CASE("a bad token ends run with a clear error", "[telegram][channel]") {
  Fixture f;
  f.host.env["TELEGRAM_BOT_TOKEN"] = "999:wrong";
  Running running(f.host, f.sink);
  Status status = running.join();
  CHECK(status.message() ==
        "telegram: getUpdates: HTTP 401 Unauthorized (check TELEGRAM_BOT_TOKEN)");
}

TEST_CASE("another poller (409) is logged and retried with backoff, not fatal",
          "[telegram][channel]") {
  Fixture f;
  f.fake.addFault({"getUpdates", 409, "", 0, false, 2});
  Running running(f.host, f.sink);
  f.fake.enqueueText(kOwner, "after the other poller stopped");
  REQUIRE(f.sink.wait(1).size() == 1);
  CHECK(f.host.logged("HTTP 409 Conflict"));
  CHECK(f.host.logged("another process is polling this bot"));
  CHECK(running.finish().isOk());
}

TEST_CASE("stop interrupts a long poll", "[telegram][channel]") {
  Fixture f;
  Running running(f.host, f.sink, 50);
  REQUIRE(f.fake.waitCalls("getUpdates", 1));
  CHECK(running.finish().isOk());
}

TEST_CASE("an inbound photo becomes an image part with its caption", "[telegram][channel]") {
  Fixture f;
  std::string bytes = std::string("\xFF\xD8\xFF\xE0 fake jpeg ", 15) + std::string(3000, 'x');
  f.fake.addFile("F1", "photos/file_1.jpg", bytes);
  Running running(f.host, f.sink);
  f.fake.enqueuePhoto(kOwner, "F1", "what is this?");
  auto got = f.sink.wait(1);
  REQUIRE(got.size() == 1);
  CHECK(got[0].text == "what is this?");
  REQUIRE(got[0].images.size() == 1);
  CHECK(got[0].images[0].mime_type == "image/jpeg");
  CHECK(fromBase64(got[0].images[0].data_base64) == bytes);
}

TEST_CASE("edits replace the text and an unchanged edit is success", "[telegram][channel]") {
  Fixture f;
  Running running(f.host, f.sink);
  auto id = running.channel->send("111", "draft");
  REQUIRE(id.isOk());
  CHECK(running.channel->edit("111", id.value(), "final *answer*").isOk());
  CHECK(running.channel->edit("111", id.value(), "final *answer*").isOk());
  auto edits = f.fake.sent("editMessageText");
  REQUIRE(edits.size() == 1);
  CHECK(edits[0].text == "final <i>answer</i>");
}

TEST_CASE("typing and photos reach the Bot API", "[telegram][channel]") {
  Fixture f;
  Running running(f.host, f.sink);
  CHECK(running.channel->typing("111").isOk());
  REQUIRE(f.fake.sent("sendChatAction").size() == 1);
  CHECK(f.fake.sent("sendChatAction")[0].text == "typing");

  gantry::Image by_url{"", "", "https://example.com/cat.png"};
  CHECK(running.channel->sendPhoto("111", by_url, "a **cat**").isOk());
  gantry::Image uploaded{"image/png", "iVBORw0KGgo=", ""};
  CHECK(running.channel->sendPhoto("111", uploaded, "").isOk());
  auto photos = f.fake.sent("sendPhoto");
  REQUIRE(photos.size() == 2);
  CHECK(photos[0].photo == "https://example.com/cat.png");
  CHECK(photos[0].text == "a <b>cat</b>");
  CHECK(photos[1].photo == "upload");
  CHECK(photos[1].photo_bytes == 8);
}

TEST_CASE("a caption longer than Telegram allows follows the photo as a message",
          "[telegram][channel]") {
  Fixture f;
  Running running(f.host, f.sink);
  gantry::Image by_url{"", "", "https://example.com/cat.png"};
  CHECK(running.channel->sendPhoto("111", by_url, std::string(1500, 'c')).isOk());
  REQUIRE(f.fake.sent("sendPhoto").size() == 1);
  CHECK(f.fake.sent("sendPhoto")[0].text.empty());
  CHECK(f.fake.sent("sendMessage").size() == 1);
}

TEST_CASE("missing token or allowlist fails with the variable's name", "[telegram][config]") {
  FakeHost host;
  Options options;
  std::string err;
  CHECK_FALSE(gantry::telegram::optionsFromHost(host, &options, &err));
  CHECK(err.find("TELEGRAM_BOT_TOKEN") != std::string::npos);
  host.env["TELEGRAM_BOT_TOKEN"] = "1:x";
  CHECK_FALSE(gantry::telegram::optionsFromHost(host, &options, &err));
  CHECK(err.find("TELEGRAM_ALLOWED_USERS") != std::string::npos);
  host.env["TELEGRAM_ALLOWED_USERS"] = "12,abc";
  CHECK_FALSE(gantry::telegram::optionsFromHost(host, &options, &err));
  CHECK(err.find("TELEGRAM_ALLOWED_USERS") != std::string::npos);
  host.env["TELEGRAM_ALLOWED_USERS"] = "12";
  CHECK(gantry::telegram::optionsFromHost(host, &options, &err));
  CHECK(options.api_base == "https://api.telegram.org");
}

TEST_CASE("TELEGRAM_ERROR_REPORTING names the owner's chat and level, or fails the factory",
          "[telegram][config]") {
  FakeHost host;
  host.env = {{"TELEGRAM_BOT_TOKEN", "1:x"}, {"TELEGRAM_ALLOWED_USERS", " 42 ,7"}};
  Options options;
  std::string err;
  REQUIRE(gantry::telegram::optionsFromHost(host, &options, &err));
  CHECK(options.reports.chat_id.empty());  // off by default
  host.env["TELEGRAM_ERROR_REPORTING"] = "warn";
  REQUIRE(gantry::telegram::optionsFromHost(host, &options, &err));
  CHECK(options.reports.chat_id == "42");  // the first id as written, not the smallest
  CHECK(options.reports.min_level == gantry::LogLevel::kWarn);
  host.env["TELEGRAM_ERROR_REPORTING"] = "loud";
  CHECK_FALSE(gantry::telegram::optionsFromHost(host, &options, &err));
  CHECK(err == "TELEGRAM_ERROR_REPORTING: \"loud\" is not one of: off, error, warn");
}
