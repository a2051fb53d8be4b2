#include "chat/redacting_channel.h"

#include <catch2/catch.hpp>

#include "chat/reply_stream.h"
#include "fakes/fake_channel.h"
#include "log/log.h"

using gantry::ChannelCaps;
using gantry::chat::RedactingChannel;
using gantry::chat::ReplyStream;
using gantry::chat::StreamOptions;
using gantry::testing::FakeChannel;

namespace {

constexpr const char* kValue = "tg-77:AAsecretpart";

/// The deltas of a reply that names the secret, split inside it.
const std::vector<std::string> kDeltas = {"the token: tg-7", "7:AAsec", "retpart, ok"};

void registerSecret() { gantry::log::addSecret(kValue, "bot_token"); }

bool showsPiece(const std::string& text) {
  return text.find("tg-7") != std::string::npos || text.find("AAsec") != std::string::npos ||
         text.find("retpart") != std::string::npos;
}

}  // namespace

TEST_CASE("every text bound for a chat is redacted", "[chat]") {
  registerSecret();
  FakeChannel inner;
  RedactingChannel channel(inner);
  auto id = channel.send("c", std::string("error: bad token ") + kValue);
  channel.edit("c", id.value(), std::string("now ") + kValue);
  channel.sendPhoto("c", {}, std::string("caption ") + kValue);
  for (const auto& text : inner.shown()) CHECK_FALSE(showsPiece(text));
  CHECK(inner.shown().front() == "error: bad token [redacted:bot_token]");
}

TEST_CASE("a terminal stream holds back what may begin a secret until it knows", "[chat]") {
  registerSecret();
  ChannelCaps caps;
  caps.raw_stream = true;
  FakeChannel inner(caps);
  RedactingChannel channel(inner);
  for (const auto& delta : kDeltas) {
    channel.streamText("c", delta, false);
    CHECK_FALSE(showsPiece(inner.terminal()));
  }
  channel.streamText("c", " end", false);
  channel.streamText("c", "", true);
  CHECK(inner.terminal() == "the token: [redacted:bot_token], ok end\n");
  // A prefix that turns out not to be the secret is written once the stream knows.
  channel.streamText("c", "see tg-", false);
  CHECK(inner.terminal().find("see ") != std::string::npos);
  CHECK(inner.terminal().find("see tg-") == std::string::npos);
  channel.streamText("c", "rocks", true);
  CHECK(inner.terminal().find("see tg-rocks\n") != std::string::npos);
}

TEST_CASE("an edited bubble never shows part of a secret while it streams", "[chat]") {
  registerSecret();
  ChannelCaps caps;
  caps.can_edit = true;
  FakeChannel inner(caps);
  RedactingChannel channel(inner);
  StreamOptions options;
  options.stream = true;
  options.spinup_ms = 0;
  options.edit_interval = std::chrono::milliseconds(0);
  ReplyStream stream(channel, "c", options);
  for (const auto& delta : kDeltas) stream.onText(delta);
  stream.finish("the token: " + std::string(kValue) + ", ok");
  auto shown = inner.shown();
  REQUIRE(shown.size() >= 2);
  for (const auto& text : shown) CHECK_FALSE(showsPiece(text));
  CHECK(inner.bubbles().back() == "the token: [redacted:bot_token], ok");
}
