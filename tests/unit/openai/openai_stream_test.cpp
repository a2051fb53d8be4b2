#include "openai_stream.h"

#include <catch2/catch.hpp>

#include "openai_api.h"

using gantry::ChatResponse;
using gantry::Status;
using gantry::StreamCallbacks;
using gantry::openai::SseParser;
using gantry::openai::StreamAssembler;
using gantry::openai::ThinkFilter;

namespace {

// Shaped like a recorded chat.completion.chunk stream: CRLF and LF line ends, a comment line,
// reasoning, a <think> block, two tool calls with arguments in pieces, usage, [DONE].
const std::string kRecorded =
    ": keep-alive\r\n\r\n"
    "data: {\"id\":\"x\",\"object\":\"chat.completion.chunk\",\"choices\":[{\"index\":0,"
    "\"delta\":{\"role\":\"assistant\",\"content\":\"\"},\"finish_reason\":null}]}\r\n\r\n"
    "data: {\"choices\":[{\"index\":0,\"delta\":{\"reasoning_content\":\"Let me \"}}]}\n\n"
    "data: {\"choices\":[{\"index\":0,\"delta\":{\"reasoning\":\"think.\"}}]}\n\n"
    "data: {\"choices\":[{\"index\":0,\"delta\":{\"content\":\"<think>hidden</think>\"}}]}\n\n"
    "data: {\"choices\":[{\"index\":0,\"delta\":{\"content\":\"Héllo, \"}}]}\n\n"
    "data: {\"choices\":[{\"index\":0,\"delta\":{\"content\":\"world\"}}]}\n\n"
    "data: {\"choices\":[{\"index\":0,\"delta\":{\"tool_calls\":[{\"index\":0,\"id\":\"c1\","
    "\"type\":\"function\",\"function\":{\"name\":\"memory_store\",\"arguments\":\"\"}}]}}]}\n\n"
    "data: {\"choices\":[{\"index\":0,\"delta\":{\"tool_calls\":[{\"index\":0,"
    "\"function\":{\"arguments\":\"{\\\"text\\\":\"}}]}}]}\n\n"
    "data: {\"choices\":[{\"index\":0,\"delta\":{\"tool_calls\":[{\"index\":0,"
    "\"function\":{\"arguments\":\"\\\"x\\\"}\"}}]}}]}\n\n"
    "data: {\"choices\":[{\"index\":0,\"delta\":{},\"finish_reason\":\"tool_calls\"}]}\n\n"
    "data: {\"choices\":[],\"usage\":{\"prompt_tokens\":7,\"completion_tokens\":9}}\n\n"
    "data: [DONE]\n\n";

struct Collected {
  std::vector<std::string> texts;
  std::vector<std::string> reasoning;
  std::vector<std::pair<int, std::string>> tools;
  StreamCallbacks callbacks() {
    StreamCallbacks out;
    out.on_text = [this](std::string_view t) { texts.emplace_back(t); };
    out.on_reasoning = [this](std::string_view t) { reasoning.emplace_back(t); };
    out.on_tool = [this](int i, std::string_view n) { tools.emplace_back(i, std::string(n)); };
    return out;
  }
};

std::string join(const std::vector<std::string>& parts) {
  std::string out;
  for (const auto& part : parts) out += part;
  return out;
}

ChatResponse assemble(const std::vector<std::string_view>& pieces, Collected* seen) {
  StreamCallbacks callbacks = seen->callbacks();
  StreamAssembler assembler(&callbacks);
  SseParser parser;
  auto on_data = [&](std::string_view data) { return assembler.onData(data); };
  for (auto piece : pieces) REQUIRE(parser.feed(piece, on_data).isOk());
  REQUIRE(parser.finish(on_data).isOk());
  CHECK(assembler.done());
  return assembler.finish();
}

void checkRecorded(const ChatResponse& response, const Collected& seen) {
  CHECK(response.message.content == "Héllo, world");
  CHECK(join(seen.texts) == response.message.content);
  CHECK(response.message.reasoning == "Let me think.hidden");
  CHECK(join(seen.reasoning) == response.message.reasoning);
  REQUIRE(response.message.tool_calls.size() == 1);
  CHECK(response.message.tool_calls[0].id == "c1");
  CHECK(response.message.tool_calls[0].name == "memory_store");
  CHECK(response.message.tool_calls[0].arguments == "{\"text\":\"x\"}");
  CHECK(seen.tools == std::vector<std::pair<int, std::string>>{{0, "memory_store"}});
  CHECK(response.finish_reason == "tool_calls");
  CHECK(response.usage.prompt_tokens == 7);
  CHECK(response.usage.completion_tokens == 9);
}

}  // namespace

TEST_CASE("a recorded stream assembles the same at every byte boundary", "[openai]") {
  std::string_view all = kRecorded;
  for (std::size_t cut = 0; cut <= all.size(); ++cut) {
    Collected seen;
    ChatResponse response = assemble({all.substr(0, cut), all.substr(cut)}, &seen);
    INFO("cut at byte " << cut);
    checkRecorded(response, seen);
  }
}

TEST_CASE("a recorded stream assembles when fed one byte at a time", "[openai]") {
  std::vector<std::string_view> bytes;
  std::string_view all = kRecorded;
  for (std::size_t i = 0; i < all.size(); ++i) bytes.push_back(all.substr(i, 1));
  Collected seen;
  checkRecorded(assemble(bytes, &seen), seen);
}

TEST_CASE("SSE events join multi-line data and skip comments and other fields", "[openai]") {
  SseParser parser;
  std::vector<std::string> events;
  auto on_data = [&](std::string_view data) {
    events.emplace_back(data);
    return Status::ok();
  };
  REQUIRE(parser.feed("event: x\rdata: a\rdata:b\r\r:comment\n\nid: 3\ndata: c", on_data).isOk());
  REQUIRE(parser.finish(on_data).isOk());
  CHECK(events == std::vector<std::string>{"a\nb", "c"});
}

TEST_CASE("an SSE line or event over the cap fails the stream", "[openai]") {
  auto on_data = [](std::string_view) { return Status::ok(); };
  SseParser long_line(16);
  CHECK_FALSE(long_line.feed("data: 0123456789ab", on_data).isOk());
  SseParser many_lines(16);
  REQUIRE(many_lines.feed("data: 0123456789\n", on_data).isOk());
  auto status = many_lines.feed("data: 0123456789\n", on_data);
  REQUIRE_FALSE(status.isOk());
  CHECK(status.message() == "a stream event over 0 KB");
}

TEST_CASE("two interleaved tool calls are assembled by index", "[openai]") {
  Collected seen;
  StreamCallbacks callbacks = seen.callbacks();
  StreamAssembler assembler(&callbacks);
  const char* chunks[] = {
      R"({"choices":[{"delta":{"tool_calls":[{"index":0,"id":"a","function":{"name":"first","arguments":"{\"x\""}}]}}]})",
      R"({"choices":[{"delta":{"tool_calls":[{"index":1,"id":"b","function":{"name":"second","arguments":""}}]}}]})",
      R"({"choices":[{"delta":{"tool_calls":[{"index":1,"function":{"arguments":"{\"y\":"}}]}}]})",
      R"({"choices":[{"delta":{"tool_calls":[{"index":0,"function":{"arguments":":1}"}}]}}]})",
      R"({"choices":[{"delta":{"tool_calls":[{"index":1,"function":{"arguments":"2}"}}]}}]})",
      R"({"choices":[{"delta":{},"finish_reason":"tool_calls"}]})"};
  for (const char* chunk : chunks) REQUIRE(assembler.onData(chunk).isOk());
  ChatResponse response = assembler.finish();
  REQUIRE(response.message.tool_calls.size() == 2);
  CHECK(response.message.tool_calls[0].id == "a");
  CHECK(response.message.tool_calls[0].name == "first");
  CHECK(response.message.tool_calls[0].arguments == R"({"x":1})");
  CHECK(response.message.tool_calls[1].id == "b");
  CHECK(response.message.tool_calls[1].name == "second");
  CHECK(response.message.tool_calls[1].arguments == R"({"y":2})");
  CHECK(seen.tools == std::vector<std::pair<int, std::string>>{{0, "first"}, {1, "second"}});
}

TEST_CASE("a streamed tool call without an id gets a generated one", "[openai]") {
  StreamAssembler assembler(nullptr);
  REQUIRE(
      assembler
          .onData(
              R"({"choices":[{"delta":{"tool_calls":[{"index":0,"function":{"name":"f","arguments":"{}"}}]}}]})")
          .isOk());
  ChatResponse response = assembler.finish();
  REQUIRE(response.message.tool_calls.size() == 1);
  CHECK(response.message.tool_calls[0].id.rfind("call_", 0) == 0);
  CHECK(response.message.tool_calls[0].id.size() > 5);
}

TEST_CASE("a streamed thought_signature is kept and sent back in the same place", "[openai]") {
  StreamAssembler assembler(nullptr);
  REQUIRE(assembler
              .onData(R"({"choices":[{"delta":{"tool_calls":[{"index":0,"id":"g1","type":"function",
                 "function":{"name":"f","arguments":"{}"},
                 "extra_content":{"google":{"thought_signature":"c2lnbmF0dXJl"}}}]}}]})")
              .isOk());
  ChatResponse response = assembler.finish();
  REQUIRE(response.message.tool_calls.size() == 1);
  CHECK(response.message.tool_calls[0].thought_signature == "c2lnbmF0dXJl");
  std::vector<gantry::ChatMessage> history = {response.message};
  gantry::ChatRequest request;
  request.messages = &history;
  auto body = gantry::openai::encodeRequest(request, {"m", 0, false});
  REQUIRE(body.isOk());
  CHECK(body.value().find(R"("extra_content":{"google":{"thought_signature":"c2lnbmF0dXJl"}})") !=
        std::string::npos);
}

TEST_CASE("think blocks split at every position never reach the visible text", "[openai]") {
  const std::string content = "<think>secret plan</think>\n\nVisible <b>answer</b> <thin";
  for (std::size_t a = 0; a <= content.size(); ++a) {
    for (std::size_t b = a; b <= content.size(); ++b) {
      ThinkFilter filter;
      std::string visible;
      std::string reasoning;
      std::vector<std::string> emitted;
      for (const auto& piece :
           {content.substr(0, a), content.substr(a, b - a), content.substr(b)}) {
        std::size_t before = visible.size();
        filter.feed(piece, &visible, &reasoning);
        emitted.push_back(visible.substr(before));
      }
      filter.finish(&visible, &reasoning);
      INFO("cuts at " << a << " and " << b);
      for (const auto& piece : emitted) CHECK(piece.find("secret") == std::string::npos);
      CHECK(visible == "Visible <b>answer</b> <thin");
      CHECK(reasoning == "secret plan");
    }
  }
}

TEST_CASE("streamed think text goes to on_reasoning and never to on_text", "[openai]") {
  Collected seen;
  StreamCallbacks callbacks = seen.callbacks();
  StreamAssembler assembler(&callbacks);
  for (const char* piece : {"<thi", "nk>I should", " greet</th", "ink>", "Hi", "!"}) {
    std::string chunk = std::string(R"({"choices":[{"delta":{"content":")") + piece + "\"}}]}";
    REQUIRE(assembler.onData(chunk).isOk());
  }
  ChatResponse response = assembler.finish();
  CHECK(seen.texts == std::vector<std::string>{"Hi", "!"});
  CHECK(join(seen.reasoning) == "I should greet");
  CHECK(response.message.content == "Hi!");
  CHECK(response.message.reasoning == "I should greet");
}

TEST_CASE("an unclosed think block stays reasoning", "[openai]") {
  ThinkFilter filter;
  std::string visible;
  std::string reasoning;
  filter.feed("<think>still going", &visible, &reasoning);
  filter.finish(&visible, &reasoning);
  CHECK(visible.empty());
  CHECK(reasoning == "still going");
}

TEST_CASE("a chunk that is not JSON or carries an error fails the stream", "[openai]") {
  StreamAssembler assembler(nullptr);
  CHECK_FALSE(assembler.onData("{truncated").isOk());
  Status error = assembler.onData(R"({"error":{"message":"overloaded"}})");
  CHECK_FALSE(error.isOk());
  CHECK(error.message().find("overloaded") != std::string::npos);
}

TEST_CASE("tool calls streamed without an index are told apart by id", "[openai]") {
  StreamAssembler assembler(nullptr);
  const char* chunks[] = {
      R"({"choices":[{"delta":{"tool_calls":[{"id":"a","function":{"name":"f","arguments":"{\"x\":"}}]}}]})",
      R"({"choices":[{"delta":{"tool_calls":[{"function":{"arguments":"1}"}}]}}]})",
      R"({"choices":[{"delta":{"tool_calls":[{"id":"b","function":{"name":"g","arguments":"{}"}}]}}]})"};
  for (const char* chunk : chunks) REQUIRE(assembler.onData(chunk).isOk());
  ChatResponse response = assembler.finish();
  REQUIRE(response.message.tool_calls.size() == 2);
  CHECK(response.message.tool_calls[0].name == "f");
  CHECK(response.message.tool_calls[0].arguments == R"({"x":1})");
  CHECK(response.message.tool_calls[1].id == "b");
  CHECK(response.message.tool_calls[1].arguments == "{}");
}
