#include "openai_api.h"

#include <catch2/catch.hpp>

#include "Poco/JSON/Parser.h"
#include "unit/support/chat_message.h"

using gantry::ChatMessage;
using gantry::ChatRequest;
using gantry::Role;
using gantry::ToolSchema;
using Poco::JSON::Array;
using Poco::JSON::Object;

using gantry::testing::message;

namespace {

Object::Ptr encode(const ChatRequest& request, int max_tokens = 4096, bool stream = false) {
  auto body = gantry::openai::encodeRequest(request, {"test-model", max_tokens, stream});
  REQUIRE(body.isOk());
  Poco::JSON::Parser parser;
  return parser.parse(std::string(body.value())).extract<Object::Ptr>();
}

}  // namespace

TEST_CASE("a request carries model, messages, max_tokens and stream", "[openai]") {
  std::vector<ChatMessage> messages = {message(Role::kSystem, "be brief"),
                                       message(Role::kUser, "hi \"there\"\n")};
  ChatRequest request;
  request.messages = &messages;
  Object::Ptr body = encode(request);
  CHECK(body->getValue<std::string>("model") == "test-model");
  CHECK(body->getValue<int>("max_tokens") == 4096);
  CHECK_FALSE(body->getValue<bool>("stream"));
  CHECK_FALSE(body->has("stream_options"));
  CHECK_FALSE(body->has("tools"));
  CHECK_FALSE(body->has("tool_choice"));
  Array::Ptr sent = body->getArray("messages");
  REQUIRE(sent->size() == 2);
  CHECK(sent->getObject(0)->getValue<std::string>("role") == "system");
  CHECK(sent->getObject(1)->getValue<std::string>("content") == "hi \"there\"\n");
}

TEST_CASE("max_tokens 0 is left out and streaming asks for usage", "[openai]") {
  std::vector<ChatMessage> messages = {message(Role::kUser, "hi")};
  ChatRequest request;
  request.messages = &messages;
  Object::Ptr body = encode(request, 0, true);
  CHECK_FALSE(body->has("max_tokens"));
  CHECK(body->getValue<bool>("stream"));
  CHECK(body->getObject("stream_options")->getValue<bool>("include_usage"));
}

TEST_CASE("a request's own max_tokens caps below LLM_MAX_TOKENS, never above", "[openai]") {
  std::vector<ChatMessage> messages = {message(Role::kUser, "hi")};
  ChatRequest request;
  request.messages = &messages;
  request.max_tokens = 512;
  CHECK(encode(request, 4096)->getValue<int>("max_tokens") == 512);
  CHECK(encode(request, 0)->getValue<int>("max_tokens") == 512);
  request.max_tokens = 8192;
  CHECK(encode(request, 4096)->getValue<int>("max_tokens") == 4096);
}

TEST_CASE("tools are sent as functions with tool_choice auto", "[openai]") {
  std::vector<ChatMessage> messages = {message(Role::kUser, "hi")};
  ChatRequest request;
  request.messages = &messages;
  request.tools =
      gantry::makeToolList({{"memory_store", "Store a fact",
                             R"({"type":"object","properties":{"text":{"type":"string"}}})"},
                            {"ping", "No arguments", ""}});
  Object::Ptr body = encode(request);
  CHECK(body->getValue<std::string>("tool_choice") == "auto");
  Array::Ptr sent = body->getArray("tools");
  REQUIRE(sent->size() == 2);
  Object::Ptr first = sent->getObject(0);
  CHECK(first->getValue<std::string>("type") == "function");
  Object::Ptr function = first->getObject("function");
  CHECK(function->getValue<std::string>("name") == "memory_store");
  CHECK(function->getValue<std::string>("description") == "Store a fact");
  CHECK(function->getObject("parameters")->getObject("properties")->has("text"));
  CHECK(sent->getObject(1)
            ->getObject("function")
            ->getObject("parameters")
            ->getValue<std::string>("type") == "object");
}

TEST_CASE("tools encoded once are sent as if encoded with the request", "[openai]") {
  std::vector<ChatMessage> messages = {message(Role::kUser, "hi")};
  ChatRequest request;
  request.messages = &messages;
  request.tools = gantry::makeToolList(
      {{"lookup", "Find \"it\"", R"({"type":"object"})"}, {"ping", "No arguments", ""}});
  const std::string kept = gantry::openai::encodeTools(*request.tools);
  auto encoded = gantry::openai::encodeRequest(request, {"m", 10, false});
  REQUIRE(encoded.isOk());
  const std::string fresh(encoded.value());  // the next call reuses the buffer
  auto reused = gantry::openai::encodeRequest(request, {"m", 10, false, &kept});
  REQUIRE(reused.isOk());
  CHECK(reused.value() == fresh);
  CHECK(fresh.find(kept) != std::string::npos);
}

TEST_CASE("an empty tool list sends neither tools nor tool_choice", "[openai]") {
  std::vector<ChatMessage> messages = {message(Role::kUser, "hi")};
  ChatRequest request;
  request.messages = &messages;
  request.tools = gantry::makeToolList();
  Object::Ptr body = encode(request);
  CHECK_FALSE(body->has("tools"));
  CHECK_FALSE(body->has("tool_choice"));
}

TEST_CASE("user images become content parts with image_url", "[openai]") {
  ChatMessage user = message(Role::kUser, "what is this?");
  user.images.push_back({"image/png", "iVBORw0KGgo=", ""});
  user.images.push_back({"", "", "https://example.org/cat.jpg"});
  std::vector<ChatMessage> messages = {user};
  ChatRequest request;
  request.messages = &messages;
  Array::Ptr parts = encode(request)->getArray("messages")->getObject(0)->getArray("content");
  REQUIRE(parts->size() == 3);
  CHECK(parts->getObject(0)->getValue<std::string>("type") == "text");
  CHECK(parts->getObject(0)->getValue<std::string>("text") == "what is this?");
  CHECK(parts->getObject(1)->getValue<std::string>("type") == "image_url");
  CHECK(parts->getObject(1)->getObject("image_url")->getValue<std::string>("url") ==
        "data:image/png;base64,iVBORw0KGgo=");
  CHECK(parts->getObject(2)->getObject("image_url")->getValue<std::string>("url") ==
        "https://example.org/cat.jpg");
}

TEST_CASE("a request after an image-sized one is encoded whole in the released buffer",
          "[openai]") {
  ChatMessage photo = message(Role::kUser, "and this?");
  photo.images.push_back({"image/jpeg", std::string(3 << 20, 'A'), ""});
  std::vector<ChatMessage> large = {photo};
  ChatRequest request;
  request.messages = &large;
  auto first = gantry::openai::encodeRequest(request, {"m", 10, false});
  REQUIRE(first.isOk());
  CHECK(first.value().size() > (3u << 20));

  std::vector<ChatMessage> small = {message(Role::kUser, "hi")};
  request.messages = &small;
  Object::Ptr body = encode(request);
  REQUIRE(body->getArray("messages")->size() == 1);
  CHECK(body->getArray("messages")->getObject(0)->getValue<std::string>("content") == "hi");
}

TEST_CASE("assistant tool calls and tool results are encoded for the next round", "[openai]") {
  ChatMessage assistant = message(Role::kAssistant, "");
  assistant.tool_calls.push_back({"c1", "memory_store", R"({"text":"x"})", "sig-1"});
  assistant.tool_calls.push_back({"c2", "ping", "", ""});
  ChatMessage result = message(Role::kTool, "stored");
  result.tool_call_id = "c1";
  result.name = "memory_store";
  std::vector<ChatMessage> messages = {message(Role::kUser, "remember x"), assistant, result};
  ChatRequest request;
  request.messages = &messages;
  Array::Ptr sent = encode(request)->getArray("messages");
  Object::Ptr sent_assistant = sent->getObject(1);
  CHECK(sent_assistant->get("content").isEmpty());
  Array::Ptr calls = sent_assistant->getArray("tool_calls");
  REQUIRE(calls->size() == 2);
  Object::Ptr first = calls->getObject(0);
  CHECK(first->getValue<std::string>("id") == "c1");
  CHECK(first->getValue<std::string>("type") == "function");
  CHECK(first->getObject("function")->getValue<std::string>("arguments") == R"({"text":"x"})");
  CHECK(first->getObject("extra_content")
            ->getObject("google")
            ->getValue<std::string>("thought_signature") == "sig-1");
  CHECK_FALSE(calls->getObject(1)->has("extra_content"));
  CHECK(calls->getObject(1)->getObject("function")->getValue<std::string>("arguments") == "{}");
  CHECK(sent->getObject(2)->getValue<std::string>("role") == "tool");
  CHECK(sent->getObject(2)->getValue<std::string>("tool_call_id") == "c1");
  CHECK(sent->getObject(2)->getValue<std::string>("content") == "stored");
}

TEST_CASE("a tool result's images follow the round's results as a user message", "[openai]") {
  ChatMessage assistant = message(Role::kAssistant, "");
  assistant.tool_calls.push_back({"c1", "shot__take", "{}", ""});
  assistant.tool_calls.push_back({"c2", "ping", "{}", ""});
  ChatMessage shot = message(Role::kTool, "[image image/png, 8 bytes]");
  shot.tool_call_id = "c1";
  shot.name = "shot__take";
  shot.images.push_back({"image/png", "iVBORw0KGgo=", ""});
  ChatMessage pong = message(Role::kTool, "pong");
  pong.tool_call_id = "c2";
  pong.name = "ping";
  std::vector<ChatMessage> messages = {message(Role::kUser, "look"), assistant, shot, pong,
                                       message(Role::kAssistant, "a small image")};
  ChatRequest request;
  request.messages = &messages;
  Array::Ptr sent = encode(request)->getArray("messages");
  REQUIRE(sent->size() == 6);
  // The results keep their text and stay next to their calls; the image comes after both.
  CHECK(sent->getObject(2)->getValue<std::string>("content") == "[image image/png, 8 bytes]");
  CHECK(sent->getObject(3)->getValue<std::string>("role") == "tool");
  Object::Ptr images = sent->getObject(4);
  CHECK(images->getValue<std::string>("role") == "user");
  Array::Ptr parts = images->getArray("content");
  REQUIRE(parts->size() == 2);
  CHECK(parts->getObject(0)->getValue<std::string>("text") ==
        "[images returned by shot__take, call c1]");
  CHECK(parts->getObject(1)->getObject("image_url")->getValue<std::string>("url") ==
        "data:image/png;base64,iVBORw0KGgo=");
  CHECK(sent->getObject(5)->getValue<std::string>("role") == "assistant");
}

TEST_CASE("a constrained reply that answers in text becomes that text", "[openai]") {
  ChatMessage reply =
      message(Role::kAssistant, R"({"name":"answer_in_text","arguments":{"text":"It is down."}})");
  gantry::openai::unwrapTextAnswer(reply);
  CHECK(reply.content == "It is down.");
  for (const char* other : {R"({"name":"memory_store","arguments":{"text":"x"}})",
                            R"({"name":"answer_in_text","arguments":{}})", "plain words"}) {
    ChatMessage kept = message(Role::kAssistant, other);
    gantry::openai::unwrapTextAnswer(kept);
    CHECK(kept.content == other);
  }
}

TEST_CASE("a response schema becomes a strict json_schema response_format", "[openai]") {
  std::vector<ChatMessage> messages = {message(Role::kUser, "hi")};
  ChatRequest request;
  request.messages = &messages;
  request.response_schema_json = R"({"type":"object","properties":{"name":{"enum":["a","b"]}}})";
  Object::Ptr format = encode(request)->getObject("response_format");
  REQUIRE(format);
  CHECK(format->getValue<std::string>("type") == "json_schema");
  Object::Ptr schema = format->getObject("json_schema");
  CHECK(schema->getValue<std::string>("name") == "tool_call");
  CHECK(schema->getValue<bool>("strict"));
  CHECK(schema->getObject("schema")->getObject("properties")->has("name"));
}

TEST_CASE("an invalid response schema fails the encoding", "[openai]") {
  std::vector<ChatMessage> messages = {message(Role::kUser, "hi")};
  ChatRequest request;
  request.messages = &messages;
  request.response_schema_json = "{not json";
  auto body = gantry::openai::encodeRequest(request, {"m", 10, false});
  REQUIRE_FALSE(body.isOk());
  CHECK(body.status().message().find("schema") != std::string::npos);
}

TEST_CASE("a response yields content, reasoning, tool calls, usage and finish_reason", "[openai]") {
  auto response = gantry::openai::parseResponse(R"({"choices":[{"index":0,"message":{
      "role":"assistant","content":"<think>plan</think>\n\nDone.","reasoning_content":"first. ",
      "tool_calls":[{"id":"c1","type":"function","function":{"name":"f","arguments":"{\"a\":1}"},
      "extra_content":{"google":{"thought_signature":"sig"}}},
      {"type":"function","function":{"name":"g","arguments":{"b":2}}}]},
      "finish_reason":"tool_calls"}],"usage":{"prompt_tokens":12,"completion_tokens":3}})");
  REQUIRE(response.isOk());
  CHECK(response->message.role == Role::kAssistant);
  CHECK(response->message.content == "Done.");
  CHECK(response->message.reasoning == "first. plan");
  CHECK(response->finish_reason == "tool_calls");
  CHECK(response->usage.prompt_tokens == 12);
  CHECK(response->usage.completion_tokens == 3);
  REQUIRE(response->message.tool_calls.size() == 2);
  CHECK(response->message.tool_calls[0].id == "c1");
  CHECK(response->message.tool_calls[0].arguments == R"({"a":1})");
  CHECK(response->message.tool_calls[0].thought_signature == "sig");
  CHECK(response->message.tool_calls[1].id.rfind("call_", 0) == 0);
  CHECK(response->message.tool_calls[1].arguments == R"({"b":2})");
}

TEST_CASE("the reasoning field is read as well as reasoning_content", "[openai]") {
  auto response = gantry::openai::parseResponse(
      R"({"choices":[{"message":{"content":"ok","reasoning":"because"},"finish_reason":"stop"}]})");
  REQUIRE(response.isOk());
  CHECK(response->message.reasoning == "because");
  CHECK(response->message.content == "ok");
}

TEST_CASE("malformed responses are failures that say what is wrong", "[openai]") {
  CHECK_FALSE(gantry::openai::parseResponse("<html>").isOk());
  CHECK(gantry::openai::parseResponse("{\"choices\":[]}").status().message().find("choices") !=
        std::string::npos);
  auto error = gantry::openai::parseResponse(R"({"error":{"message":"model overloaded"}})");
  CHECK(error.status().message().find("model overloaded") != std::string::npos);
}

TEST_CASE("API error messages are taken from the error body", "[openai]") {
  CHECK(gantry::openai::apiErrorMessage(R"({"error":{"message":"bad key","type":"x"}})") ==
        "bad key");
  CHECK(gantry::openai::apiErrorMessage(R"({"error":"plain"})") == "plain");
  CHECK(gantry::openai::apiErrorMessage("not json").empty());
  CHECK(gantry::openai::apiErrorMessage(R"({"choices":[]})").empty());
}

TEST_CASE("cached prompt tokens and the served model are read where endpoints report them",
          "[openai]") {
  auto openai = gantry::openai::parseResponse(
      R"({"model":"gpt-x-2026-01","choices":[{"message":{"role":"assistant","content":"a"}}],
      "usage":{"prompt_tokens":50,"completion_tokens":2,
      "prompt_tokens_details":{"cached_tokens":32}}})");
  REQUIRE(openai.isOk());
  CHECK(openai->usage.cached_tokens == 32);
  CHECK(openai->model == "gpt-x-2026-01");
  auto deepseek = gantry::openai::parseResponse(
      R"({"choices":[{"message":{"role":"assistant","content":"a"}}],
      "usage":{"prompt_tokens":50,"completion_tokens":2,"prompt_cache_hit_tokens":40}})");
  REQUIRE(deepseek.isOk());
  CHECK(deepseek->usage.cached_tokens == 40);
  CHECK(deepseek->model.empty());
}

TEST_CASE("token counts that are not whole non-negative numbers read as zero", "[openai]") {
  auto response = gantry::openai::parseResponse(
      R"({"choices":[{"message":{"role":"assistant","content":"a"}}],
      "usage":{"prompt_tokens":1e100,"completion_tokens":-3,
      "prompt_tokens_details":{"cached_tokens":18446744073709551615}}})");
  REQUIRE(response.isOk());
  CHECK(response->usage.prompt_tokens == 0);
  CHECK(response->usage.completion_tokens == 0);
  CHECK(response->usage.cached_tokens == 0);
  auto fractional = gantry::openai::parseResponse(
      R"({"choices":[{"message":{"role":"assistant","content":"a"}}],
      "usage":{"prompt_tokens":12.0,"completion_tokens":4}})");
  REQUIRE(fractional.isOk());
  CHECK(fractional->usage.prompt_tokens == 12);
  CHECK(fractional->usage.completion_tokens == 4);
}
