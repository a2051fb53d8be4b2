#include "telegram_api.h"

#include <catch2/catch.hpp>

using namespace gantry::telegram;

TEST_CASE("the allowlist takes comma-separated numeric ids", "[telegram][config]") {
  std::set<std::int64_t> ids;
  std::string err;
  REQUIRE(parseAllowlist(" 111, 222 ,333", &ids, &err));
  CHECK(ids == std::set<std::int64_t>{111, 222, 333});
}

TEST_CASE("an empty or non-numeric allowlist fails naming the variable", "[telegram][config]") {
  std::set<std::int64_t> ids;
  std::string err;
  CHECK_FALSE(parseAllowlist(" , ", &ids, &err));
  CHECK(err.find("TELEGRAM_ALLOWED_USERS") != std::string::npos);
  CHECK_FALSE(parseAllowlist("111,@bob", &ids, &err));
  CHECK(err.find("TELEGRAM_ALLOWED_USERS") != std::string::npos);
  CHECK(err.find("@bob") != std::string::npos);
}

TEST_CASE("Bot API errors are classified from error_code and description", "[telegram][api]") {
  auto r429 = parseReply(
      429,
      R"({"ok":false,"error_code":429,"description":"Too Many Requests: retry after 7","parameters":{"retry_after":7}})");
  CHECK(r429.outcome == Outcome::kRetryAfter);
  CHECK(r429.retry_after == 7);
  CHECK(
      parseReply(
          400,
          R"({"ok":false,"error_code":400,"description":"Bad Request: can't parse entities: Unsupported start tag \"x\" at byte offset 0"})")
          .outcome == Outcome::kEntities);
  CHECK(
      parseReply(
          400,
          R"({"ok":false,"error_code":400,"description":"Bad Request: message is not modified: specified new message content"})")
          .outcome == Outcome::kNotModified);
  CHECK(parseReply(400,
                   R"({"ok":false,"error_code":400,"description":"Bad Request: chat not found"})")
            .outcome == Outcome::kFailed);
  CHECK(parseReply(502, "<html>Bad Gateway</html>").outcome == Outcome::kTransient);
  CHECK(
      parseReply(
          409,
          R"({"ok":false,"error_code":409,"description":"Conflict: terminated by other getUpdates request"})")
          .outcome == Outcome::kConflict);
}

TEST_CASE("a 401 is described with a hint to check the token", "[telegram][api]") {
  Reply reply = parseReply(401, R"({"ok":false,"error_code":401,"description":"Unauthorized"})");
  CHECK(reply.outcome == Outcome::kUnauthorized);
  CHECK(describe("getUpdates", reply) ==
        "telegram: getUpdates: HTTP 401 Unauthorized (check TELEGRAM_BOT_TOKEN)");
}

TEST_CASE("a successful reply keeps its result and message id", "[telegram][api]") {
  Reply reply = parseReply(200, R"({"ok":true,"result":{"message_id":77,"text":"x"}})");
  REQUIRE(reply.outcome == Outcome::kOk);
  CHECK(messageIdOf(reply.result_json) == "77");
  CHECK(messageIdOf(parseReply(200, R"({"ok":true,"result":true})").result_json).empty());
}

TEST_CASE("updates map to inbound messages with the largest photo", "[telegram][api]") {
  std::vector<Update> updates;
  std::string err;
  REQUIRE(parseUpdates(R"([
    {"update_id":5,"message":{"message_id":9,"from":{"id":111,"first_name":"Ann","last_name":"Lee"},
      "chat":{"id":111,"type":"private"},"text":"hello"}},
    {"update_id":6,"edited_message":{"message_id":10,"from":{"id":111,"username":"ann"},
      "chat":{"id":111,"type":"private"},"caption":"look",
      "photo":[{"file_id":"small","width":90,"height":60},{"file_id":"big","width":1280,"height":960,"file_size":5000}]}},
    {"update_id":7,"callback_query":{}},
    {"update_id":8,"message":{"message_id":11,"from":{"id":111},"chat":{"id":111,"type":"private"},
      "document":{"file_id":"doc","mime_type":"image/png","file_size":900}}}])",
                       &updates, &err));
  REQUIRE(updates.size() == 4);
  CHECK(updates[0].message.text == "hello");
  CHECK(updates[0].message.sender_name == "Ann Lee");
  CHECK(updates[0].message.chat_id == "111");
  CHECK(updates[0].sender_id == 111);
  CHECK(updates[1].message.text == "look");
  CHECK(updates[1].photo_file_id == "big");
  CHECK(updates[1].photo_size == 5000);
  CHECK(updates[1].message.sender_name == "ann");
  CHECK_FALSE(updates[2].has_message);
  CHECK(updates[3].photo_file_id == "doc");
  CHECK(updates[3].photo_size == 900);
}

TEST_CASE("request bodies send numeric chat ids as numbers", "[telegram][api]") {
  CHECK(sendMessageBody("111", "<b>x</b>", true).find("\"chat_id\":111") != std::string::npos);
  CHECK(sendMessageBody("111", "x", true).find("\"parse_mode\":\"HTML\"") != std::string::npos);
  CHECK(sendMessageBody("111", "x", false).find("parse_mode") == std::string::npos);
  std::string poll = getUpdatesBody(42, 50);
  CHECK(poll.find("\"offset\":42") != std::string::npos);
  CHECK(poll.find("\"timeout\":50") != std::string::npos);
  CHECK(poll.find("edited_message") != std::string::npos);
}

TEST_CASE("the command menu body keeps what setMyCommands accepts, in order", "[telegram][api]") {
  const std::vector<gantry::ChatCommand> commands = {{"new", "start a fresh session"},
                                                     {"Bad", "upper case"},
                                                     {"perf", "the last turns"},
                                                     {"empty", ""},
                                                     {std::string(33, 'a'), "too long a name"},
                                                     {"long", std::string(257, 'x')}};
  CHECK(setMyCommandsBody(commands) ==
        R"({"commands":[{"command":"new","description":"start a fresh session"},)"
        R"({"command":"perf","description":"the last turns"}]})");
  CHECK(setMyCommandsBody({}).empty());
  CHECK(setMyCommandsBody({{"Bad", "only bad ones"}}).empty());
}
