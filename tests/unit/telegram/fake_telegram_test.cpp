// The fake Bot API itself: the documented behaviours the channel tests rely on.

#include "fake_telegram.h"

#include <Poco/JSON/Object.h>
#include <Poco/JSON/Parser.h>
#include <Poco/Net/HTTPClientSession.h>
#include <Poco/Net/HTTPRequest.h>
#include <Poco/Net/HTTPResponse.h>
#include <Poco/StreamCopier.h>

#include <catch2/catch.hpp>
#include <future>

using gantry::fakes::FakeTelegram;

namespace {

struct Answer {
  int status = 0;
  Poco::JSON::Object::Ptr json;
  std::string body;
};

Answer post(const FakeTelegram& fake, const std::string& path, const std::string& body) {
  Poco::Net::HTTPClientSession session("127.0.0.1", static_cast<Poco::UInt16>(fake.port()));
  session.setTimeout(Poco::Timespan(30, 0));
  Poco::Net::HTTPRequest request(Poco::Net::HTTPRequest::HTTP_POST, path,
                                 Poco::Net::HTTPRequest::HTTP_1_1);
  request.setContentType("application/json");
  request.setContentLength(static_cast<std::streamsize>(body.size()));
  session.sendRequest(request) << body;
  Poco::Net::HTTPResponse response;
  Answer answer;
  Poco::StreamCopier::copyToString(session.receiveResponse(response), answer.body);
  answer.status = static_cast<int>(response.getStatus());
  Poco::JSON::Parser parser;
  if (answer.body.front() == '{')
    answer.json = parser.parse(answer.body).extract<Poco::JSON::Object::Ptr>();
  return answer;
}

Answer call(const FakeTelegram& fake, const std::string& method, const std::string& body) {
  return post(fake, "/bot" + fake.token() + "/" + method, body);
}

}  // namespace

TEST_CASE("the fake refuses a wrong token with Telegram's 401 body", "[telegram][fake]") {
  FakeTelegram fake;
  fake.start();
  Answer answer = post(fake, "/botWRONG/getMe", "{}");
  CHECK(answer.status == 401);
  CHECK(answer.json->getValue<bool>("ok") == false);
  CHECK(answer.json->getValue<int>("error_code") == 401);
  CHECK(answer.json->getValue<std::string>("description") == "Unauthorized");
}

TEST_CASE("getUpdates with an offset confirms the older updates", "[telegram][fake]") {
  FakeTelegram fake;
  fake.start();
  auto first = fake.enqueueText(1, "a");
  auto second = fake.enqueueText(1, "b");
  CHECK(call(fake, "getUpdates", "{}").json->getArray("result")->size() == 2);
  Answer after = call(fake, "getUpdates", "{\"offset\":" + std::to_string(first + 1) + "}");
  REQUIRE(after.json->getArray("result")->size() == 1);
  CHECK(after.json->getArray("result")->getObject(0)->getValue<std::int64_t>("update_id") ==
        second);
  CHECK(call(fake, "getUpdates", "{}").json->getArray("result")->size() == 1);
  CHECK(fake.confirmedOffset() == first + 1);
}

TEST_CASE("a second long poll ends the first with 409 Conflict", "[telegram][fake]") {
  FakeTelegram fake;
  fake.start();
  auto first =
      std::async(std::launch::async, [&] { return call(fake, "getUpdates", "{\"timeout\":20}"); });
  REQUIRE(fake.waitPolling());
  auto second =
      std::async(std::launch::async, [&] { return call(fake, "getUpdates", "{\"timeout\":1}"); });
  Answer older = first.get();
  CHECK(older.status == 409);
  CHECK(older.json->getValue<std::string>("description").rfind("Conflict:", 0) == 0);
  CHECK(second.get().status == 200);
}

TEST_CASE("the fake checks HTML entities, length and unchanged edits", "[telegram][fake]") {
  FakeTelegram fake;
  fake.start();
  Answer broken = call(fake, "sendMessage", R"({"chat_id":1,"text":"<b>x","parse_mode":"HTML"})");
  CHECK(broken.status == 400);
  CHECK(broken.json->getValue<std::string>("description").find("can't parse entities") !=
        std::string::npos);
  Answer unknown =
      call(fake, "sendMessage", R"({"chat_id":1,"text":"<h1>x</h1>","parse_mode":"HTML"})");
  CHECK(unknown.status == 400);
  std::string long_text(4097, 'x');
  Answer too_long = call(fake, "sendMessage", R"({"chat_id":1,"text":")" + long_text + "\"}");
  CHECK(too_long.json->getValue<std::string>("description") == "Bad Request: message is too long");
  Answer sent =
      call(fake, "sendMessage", R"({"chat_id":1,"text":"<b>a</b> &amp; b","parse_mode":"HTML"})");
  REQUIRE(sent.status == 200);
  auto message = sent.json->getObject("result");
  CHECK(message->getValue<std::string>("text") == "a & b");
  std::string id = std::to_string(message->getValue<std::int64_t>("message_id"));
  std::string edit = R"({"chat_id":1,"message_id":)" + id + R"(,"text":"new"})";
  CHECK(call(fake, "editMessageText", edit).status == 200);
  Answer same = call(fake, "editMessageText", edit);
  CHECK(same.status == 400);
  CHECK(same.json->getValue<std::string>("description").find("message is not modified") !=
        std::string::npos);
}

TEST_CASE("scripted faults answer 429 with retry_after, then clear", "[telegram][fake]") {
  FakeTelegram fake;
  fake.start();
  CHECK(post(fake, "/control/fail", R"({"method":"sendMessage","status":429,"retry_after":5})")
            .status == 200);
  Answer limited = call(fake, "sendMessage", R"({"chat_id":1,"text":"x"})");
  CHECK(limited.status == 429);
  CHECK(limited.json->getObject("parameters")->getValue<int>("retry_after") == 5);
  CHECK(limited.json->getValue<std::string>("description") == "Too Many Requests: retry after 5");
  CHECK(call(fake, "sendMessage", R"({"chat_id":1,"text":"x"})").status == 200);
}

TEST_CASE("control endpoints enqueue updates and list what was sent", "[telegram][fake]") {
  FakeTelegram fake;
  fake.start();
  Answer queued = post(
      fake, "/control/updates",
      R"({"message":{"message_id":5,"from":{"id":7},"chat":{"id":7,"type":"private"},"text":"hi"}})");
  REQUIRE(queued.status == 200);
  CHECK(call(fake, "getUpdates", "{}").json->getArray("result")->size() == 1);
  call(fake, "sendMessage", R"({"chat_id":7,"text":"reply"})");
  Poco::Net::HTTPClientSession session("127.0.0.1", static_cast<Poco::UInt16>(fake.port()));
  Poco::Net::HTTPRequest request(Poco::Net::HTTPRequest::HTTP_GET, "/control/sent",
                                 Poco::Net::HTTPRequest::HTTP_1_1);
  session.sendRequest(request);
  Poco::Net::HTTPResponse response;
  std::string body;
  Poco::StreamCopier::copyToString(session.receiveResponse(response), body);
  CHECK(body.find("\"text\":\"reply\"") != std::string::npos);
}

TEST_CASE("setMyCommands keeps a valid menu and getMyCommands returns it", "[telegram][fake]") {
  FakeTelegram fake;
  fake.start();
  Answer set = call(fake, "setMyCommands",
                    R"({"commands":[{"command":"perf","description":"the last turns"},)"
                    R"({"command":"tool_stats2","description":"per tool"}]})");
  CHECK(set.status == 200);
  CHECK(set.body == R"({"ok":true,"result":true})");
  REQUIRE(fake.commands().size() == 2);
  CHECK(fake.commands()[1].command == "tool_stats2");
  Answer got = call(fake, "getMyCommands", "{}");
  CHECK(got.json->getArray("result")->getObject(0)->getValue<std::string>("description") ==
        "the last turns");
  // No commands parameter sets an empty list, as the Bot API does.
  CHECK(call(fake, "setMyCommands", "{}").status == 200);
  CHECK(fake.commands().empty());
}

TEST_CASE("setMyCommands refuses what the Bot API refuses, with its descriptions",
          "[telegram][fake]") {
  FakeTelegram fake;
  fake.start();
  auto refusal = [&](const std::string& commands) {
    Answer a = call(fake, "setMyCommands", R"({"commands":)" + commands + "}");
    CHECK(a.status == 400);
    CHECK(a.json->getValue<int>("error_code") == 400);
    return a.json->getValue<std::string>("description");
  };
  CHECK(refusal(R"([{"command":"Perf","description":"x"}])") == "Bad Request: BOT_COMMAND_INVALID");
  CHECK(refusal(R"([{"command":"/perf","description":"x"}])") ==
        "Bad Request: BOT_COMMAND_INVALID");
  CHECK(refusal(R"([{"command":")" + std::string(33, 'a') + R"(","description":"x"}])") ==
        "Bad Request: BOT_COMMAND_INVALID");
  CHECK(refusal(R"([{"command":"perf","description":""}])") ==
        "Bad Request: BOT_COMMAND_DESCRIPTION_INVALID");
  CHECK(refusal(R"([{"command":"perf","description":")" + std::string(257, 'd') + R"("}])") ==
        "Bad Request: BOT_COMMAND_DESCRIPTION_INVALID");
  CHECK(refusal(R"([{"command":"perf"}])") ==
        "Bad Request: can't parse BotCommand: Can't find field \"description\"");
  CHECK(refusal(R"("perf")").find("can't parse commands JSON object") != std::string::npos);
  std::string many = "[";
  for (int i = 0; i < 101; ++i)
    many += R"({"command":"c)" + std::to_string(i) + R"(","description":"d"},)";
  many.back() = ']';
  CHECK(refusal(many) == "Bad Request: too many commands specified");
  CHECK(fake.commands().empty());  // a refused call changes nothing
}
