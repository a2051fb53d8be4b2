#include "discord_api.h"

#include <Poco/JSON/Object.h>
#include <Poco/JSON/Parser.h>

#include <catch2/catch.hpp>

#include "discord_rest.h"

namespace gantry::discord {
namespace {

Poco::JSON::Object::Ptr parse(const std::string& text) {
  return Poco::JSON::Parser().parse(text).extract<Poco::JSON::Object::Ptr>();
}

Frame frame(const std::string& text) {
  Result<Frame> parsed = parseFrame(text);
  REQUIRE(parsed.isOk());
  return parsed.value();
}

const char* kDm = R"({"op":0,"s":4,"t":"MESSAGE_CREATE","d":{"id":"11","channel_id":"22",
  "author":{"id":"33","username":"ada","global_name":"Ada L"},"content":"hi",
  "attachments":[{"url":"https://cdn/x.png","content_type":"image/png","filename":"x.png",
  "size":10},{"url":"https://cdn/a.txt","content_type":"text/plain","filename":"a.txt"}]}})";

}  // namespace

TEST_CASE("identify asks for DM and message-content intents with connection properties",
          "[discord]") {
  auto payload = parse(identifyPayload("tok", kIntents));
  CHECK(payload->getValue<int>("op") == 2);
  auto data = payload->getObject("d");
  CHECK(data->getValue<std::string>("token") == "tok");
  CHECK(data->getValue<int>("intents") == ((1 << 12) | (1 << 15)));
  auto properties = data->getObject("properties");
  CHECK(properties->has("os"));
  CHECK(properties->has("browser"));
  CHECK(properties->has("device"));
}

TEST_CASE("heartbeat carries the last sequence number or null", "[discord]") {
  CHECK(parse(heartbeatPayload(42))->getValue<int>("d") == 42);
  auto empty = parse(heartbeatPayload(std::nullopt));
  CHECK(empty->getValue<int>("op") == 1);
  CHECK(empty->isNull("d"));
}

TEST_CASE("resume carries token, session id and sequence", "[discord]") {
  auto payload = parse(resumePayload("tok", "abc", 7));
  CHECK(payload->getValue<int>("op") == 6);
  CHECK(payload->getObject("d")->getValue<std::string>("session_id") == "abc");
  CHECK(payload->getObject("d")->getValue<std::int64_t>("seq") == 7);
}

TEST_CASE("hello and ready frames yield the interval and the resume state", "[discord]") {
  CHECK(helloInterval(frame(R"({"op":10,"d":{"heartbeat_interval":41250}})")).value() == 41250);
  CHECK_FALSE(helloInterval(frame(R"({"op":10,"d":{}})")).isOk());
  Frame ready = frame(
      R"({"op":0,"s":1,"t":"READY","d":{"v":10,"session_id":"s1",
      "resume_gateway_url":"wss://resume.example","user":{"id":"99","bot":true}}})");
  CHECK(ready.seq == 1);
  CHECK(ready.type == "READY");
  auto info = parseReady(ready);
  REQUIRE(info.isOk());
  CHECK(info->session_id == "s1");
  CHECK(info->resume_gateway_url == "wss://resume.example");
  CHECK(info->user_id == "99");
}

TEST_CASE("invalid session data says whether the session can be resumed", "[discord]") {
  CHECK(invalidSessionResumable(frame(R"({"op":9,"d":true})")));
  CHECK_FALSE(invalidSessionResumable(frame(R"({"op":9,"d":false})")));
}

TEST_CASE("a malformed gateway frame is an error, not a crash", "[discord]") {
  CHECK_FALSE(parseFrame("not json").isOk());
  CHECK_FALSE(parseFrame(R"({"d":1})").isOk());
  CHECK_FALSE(parseFrame("[1,2]").isOk());
}

TEST_CASE("a DM maps to an inbound message with image attachments only", "[discord]") {
  auto message = parseMessage(frame(kDm).data);
  REQUIRE(message.isOk());
  InboundMessage inbound = toInbound(message.value());
  CHECK(inbound.chat_id == "22");
  CHECK(inbound.sender_id == "33");
  CHECK(inbound.sender_name == "Ada L");
  CHECK(inbound.text == "hi");
  CHECK(inbound.message_id == "11");
  REQUIRE(inbound.images.size() == 1);
  CHECK(inbound.images[0].url == "https://cdn/x.png");
}

TEST_CASE("only DMs from allowlisted humans other than the bot are admitted", "[discord]") {
  DiscordMessage message;
  message.author_id = "33";
  std::set<std::string> allowed{"33"};
  CHECK(admit(message, allowed, "99") == Admission::kAccept);
  message.guild_id = "5";
  CHECK(admit(message, allowed, "99") == Admission::kNotDirect);
  message.guild_id.clear();
  message.author_bot = true;
  CHECK(admit(message, allowed, "99") == Admission::kBot);
  message.author_bot = false;
  CHECK(admit(message, allowed, "33") == Admission::kSelf);
  message.author_id = "44";
  CHECK(admit(message, allowed, "99") == Admission::kStranger);
}

TEST_CASE("the allowlist takes snowflakes and rejects empty or non-numeric values", "[discord]") {
  auto ids = parseAllowedUsers("123, 456 789");
  REQUIRE(ids.isOk());
  CHECK(ids->size() == 3);
  CHECK_FALSE(parseAllowedUsers("").isOk());
  CHECK_FALSE(parseAllowedUsers(" , ").isOk());
  auto bad = parseAllowedUsers("123,@ada");
  REQUIRE_FALSE(bad.isOk());
  CHECK(bad.status().message().find("DISCORD_ALLOWED_USERS") != std::string::npos);
}

TEST_CASE("auth and intent close codes are fatal with a message naming the fix", "[discord]") {
  CHECK(closeAction(4004) == CloseAction::kFatal);
  CHECK(closeAction(4014) == CloseAction::kFatal);
  CHECK(closeAction(4010) == CloseAction::kFatal);
  CHECK(closeAction(4000) == CloseAction::kResume);
  CHECK(closeAction(1006) == CloseAction::kResume);
  CHECK(closeAction(4007) == CloseAction::kIdentify);
  CHECK(closeAction(4009) == CloseAction::kIdentify);
  CHECK(fatalCloseMessage(4004).find("DISCORD_BOT_TOKEN") != std::string::npos);
  CHECK(fatalCloseMessage(4014).find("MESSAGE CONTENT") != std::string::npos);
}

TEST_CASE("the connect URL asks for v10 JSON", "[discord]") {
  CHECK(connectUrl("wss://gateway.discord.gg") == "wss://gateway.discord.gg/?v=10&encoding=json");
  CHECK(connectUrl("ws://127.0.0.1:5/resume?v=9") == "ws://127.0.0.1:5/resume?v=10&encoding=json");
  CHECK(parseGatewayBot(R"({"url":"wss://g.example","shards":1})").value() == "wss://g.example");
}

TEST_CASE("message bodies carry content and suppress mentions", "[discord]") {
  auto body = parse(messageBody("hello \"you\""));
  CHECK(body->getValue<std::string>("content") == "hello \"you\"");
  CHECK(body->getObject("allowed_mentions")->getArray("parse")->size() == 0);
  auto photo = parse(photoEmbedBody("https://x/y.png", "cap"));
  CHECK(photo->getArray("embeds")->getObject(0)->getObject("image")->getValue<std::string>("url") ==
        "https://x/y.png");
  CHECK(parseMessageId(R"({"id":"123","content":"x"})").value() == "123");
  CHECK_FALSE(parseMessageId("{}").isOk());
}

TEST_CASE("a 429 body gives retry_after in fractional seconds and the global flag", "[discord]") {
  auto limit = parseRateLimit(R"({"message":"slow","retry_after":0.25,"global":true})");
  REQUIRE(limit);
  CHECK(limit->retry_after == Approx(0.25));
  CHECK(limit->global);
  CHECK_FALSE(parseRateLimit("<html>"));
  CHECK(errorMessage(R"({"message":"Unknown Message","code":10008})") == "Unknown Message");
}

TEST_CASE("edits of different messages in one channel share a rate-limit route", "[discord]") {
  CHECK(routeKey("PATCH", "/channels/1/messages/2") == routeKey("PATCH", "/channels/1/messages/3"));
  CHECK(routeKey("PATCH", "/channels/1/messages/2") != routeKey("PATCH", "/channels/4/messages/2"));
  CHECK(routeKey("POST", "/channels/1/messages") != routeKey("PATCH", "/channels/1/messages/2"));
}

}  // namespace gantry::discord
