#include "slack_api.h"

#include <catch2/catch.hpp>

using namespace gantry::slack;

namespace {

Audience audience() {
  Audience a;
  a.allowed_users = {"U0OWNER"};
  a.bot_user_id = "UBOT";
  return a;
}

std::string payload(const std::string& event_fields) {
  return R"({"type":"event_callback","event_id":"Ev123","event":{"type":"message",)" +
         event_fields + "}}";
}

const std::string kDm =
    R"("channel":"D1","channel_type":"im","user":"U0OWNER","text":"hi","ts":"1.000100",)"
    R"("client_msg_id":"cm-1")";

}  // namespace

TEST_CASE("a Socket Mode events_api frame parses into its envelope", "[slack]") {
  auto envelope = parseEnvelope(
      R"({"envelope_id":"e-1","type":"events_api","retry_attempt":2,"retry_reason":"timeout",)"
      R"("accepts_response_payload":false,"payload":{"event_id":"Ev1"}})");
  REQUIRE(envelope.isOk());
  CHECK(envelope->type == Envelope::Type::kEventsApi);
  CHECK(envelope->envelope_id == "e-1");
  CHECK(envelope->retry_attempt == 2);
  CHECK(envelope->payload_json.find("Ev1") != std::string::npos);
}

TEST_CASE("hello and disconnect frames are recognised", "[slack]") {
  auto hello = parseEnvelope(R"({"type":"hello","num_connections":1})");
  REQUIRE(hello.isOk());
  CHECK(hello->type == Envelope::Type::kHello);
  auto bye = parseEnvelope(R"({"type":"disconnect","reason":"refresh_requested"})");
  REQUIRE(bye.isOk());
  CHECK(bye->type == Envelope::Type::kDisconnect);
  CHECK(bye->reason == "refresh_requested");
  CHECK_FALSE(parseEnvelope("not json").isOk());
}

TEST_CASE("an ack carries exactly the envelope id", "[slack]") {
  CHECK(ackFrame("abc-1") == R"({"envelope_id":"abc-1"})");
}

TEST_CASE("a DM from an allowlisted member is delivered with chat, sender and ts", "[slack]") {
  auto decision = decideEvent(payload(kDm), audience());
  REQUIRE(decision.action == EventDecision::Action::kDeliver);
  CHECK(decision.message.chat_id == "D1");
  CHECK(decision.message.sender_id == "U0OWNER");
  CHECK(decision.message.text == "hi");
  CHECK(decision.message.message_id == "1.000100");
  CHECK(decision.dedupe_key == "Ev123");
}

TEST_CASE("a DM from someone not on the allowlist is a stranger", "[slack]") {
  auto event = kDm;
  event.replace(event.find("U0OWNER"), 7, "U0OTHER");
  CHECK(decideEvent(payload(event), audience()).action == EventDecision::Action::kStranger);
}

TEST_CASE("bot messages, edits, deletions, channels and our own messages are ignored", "[slack]") {
  auto a = audience();
  CHECK(decideEvent(payload(kDm + R"(,"bot_id":"B1")"), a).action ==
        EventDecision::Action::kIgnore);
  CHECK(decideEvent(payload(kDm + R"(,"subtype":"bot_message")"), a).action ==
        EventDecision::Action::kIgnore);
  CHECK(decideEvent(payload(kDm + R"(,"subtype":"message_changed")"), a).action ==
        EventDecision::Action::kIgnore);
  CHECK(decideEvent(payload(kDm + R"(,"subtype":"message_deleted")"), a).action ==
        EventDecision::Action::kIgnore);
  auto channel = kDm;
  channel.replace(channel.find(R"("im")"), 4, R"("channel")");
  CHECK(decideEvent(payload(channel), a).action == EventDecision::Action::kIgnore);
  a.bot_user_id = "U0OWNER";
  CHECK(decideEvent(payload(kDm), a).action == EventDecision::Action::kIgnore);
}

TEST_CASE("image files of a file_share message are listed for download", "[slack]") {
  auto decision = decideEvent(
      payload(kDm + R"(,"subtype":"file_share","files":[)"
                    R"({"id":"F1","mimetype":"image/png","size":10,"url_private":"http://x/F1"},)"
                    R"({"id":"F2","mimetype":"application/pdf","url_private":"http://x/F2"}])"),
      audience());
  REQUIRE(decision.action == EventDecision::Action::kDeliver);
  REQUIRE(decision.files.size() == 1);
  CHECK(decision.files[0].url_private == "http://x/F1");
  CHECK(decision.files[0].size == 10);
}

TEST_CASE("the allowlist accepts member ids and rejects empty lists and junk", "[slack]") {
  auto users = parseAllowedUsers("U012AB3CD, W0XYZ");
  REQUIRE(users.isOk());
  CHECK(users->size() == 2);
  CHECK_FALSE(parseAllowedUsers("").isOk());
  auto bad = parseAllowedUsers("alice");
  REQUIRE_FALSE(bad.isOk());
  CHECK(bad.status().message().find("SLACK_ALLOWED_USERS") != std::string::npos);
}

TEST_CASE("Web API replies report ok or the error code", "[slack]") {
  auto ok = parseApiReply(R"({"ok":true,"ts":"1.2"})");
  REQUIRE(ok.isOk());
  CHECK(ok->ok);
  CHECK(stringField(ok->body, "ts") == "1.2");
  auto bad = parseApiReply(R"({"ok":false,"error":"invalid_auth"})");
  REQUIRE(bad.isOk());
  CHECK_FALSE(bad->ok);
  CHECK(bad->error == "invalid_auth");
  CHECK_FALSE(parseApiReply("<html>").isOk());
}

TEST_CASE("markdown renders as Slack mrkdwn", "[slack]") {
  CHECK(markdownToMrkdwn("**bold** and *it* and _it_") == "*bold* and _it_ and _it_");
  CHECK(markdownToMrkdwn("~~gone~~") == "~gone~");
  CHECK(markdownToMrkdwn("see [the docs](https://x.io/a?b=1&c=2)") ==
        "see <https://x.io/a?b=1&amp;c=2|the docs>");
  CHECK(markdownToMrkdwn("# Title\n- one\n* two") == "*Title*\n• one\n• two");
  CHECK(markdownToMrkdwn("> quoted") == "> quoted");
}

TEST_CASE("& < > are escaped everywhere, code included, and code is not restyled", "[slack]") {
  CHECK(markdownToMrkdwn("a < b & c > d") == "a &lt; b &amp; c &gt; d");
  CHECK(markdownToMrkdwn("`x<*y*>`") == "`x&lt;*y*&gt;`");
  CHECK(markdownToMrkdwn("```cpp\nif (a && **b**) {}\n```") ==
        "```\nif (a &amp;&amp; **b**) {}\n```");
}

TEST_CASE("plain text and snake_case survive rendering unchanged", "[slack]") {
  CHECK(markdownToMrkdwn("call get_sleep_data now") == "call get_sleep_data now");
  CHECK(markdownToMrkdwn("2 * 3 = 6") == "2 * 3 = 6");
  CHECK(markdownToMrkdwn("") == "");
}

TEST_CASE("chat.postMessage and chat.update bodies carry channel, ts and text", "[slack]") {
  CHECK(postMessageBody("D1", "hi") == R"({"channel":"D1","text":"hi"})");
  auto update = updateMessageBody("D1", "1.2", "new");
  CHECK(update.find(R"("ts":"1.2")") != std::string::npos);
  CHECK(postImageBody("D1", "https://x/p.png", "cap").find(R"("image_url":"https://x/p.png")") !=
        std::string::npos);
}
