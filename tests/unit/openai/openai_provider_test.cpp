#include "openai_provider.h"

#include <catch2/catch.hpp>
#include <fstream>
#include <future>
#include <memory>
#include <thread>

#include "Poco/JSON/Parser.h"
#include "Poco/Net/ServerSocket.h"
#include "fake_openai_server.h"
#include "fakes/fake_host.h"

using gantry::CancelToken;
using gantry::ChatMessage;
using gantry::ChatRequest;
using gantry::ChatResponse;
using gantry::Result;
using gantry::Role;
using gantry::StreamCallbacks;
using gantry::testing::FakeHost;
using gantry::testing::FakeOpenAiServer;

namespace {

bool contains(const std::string& text, const std::string& part) {
  return text.find(part) != std::string::npos;
}

/// A provider pointed at an in-process fake server.
using Env = std::map<std::string, std::string>;

struct Bench {
  FakeOpenAiServer server;
  FakeHost host;
  std::unique_ptr<gantry::Provider> provider;
  std::vector<ChatMessage> messages;
  CancelToken cancel;

  explicit Bench(const Env& extra = {}) {
    host.env = {{"LLM_BASE_URL", server.baseUrl()}, {"LLM_MODEL", "fake-model"}};
    for (const auto& [key, value] : extra) host.env[key] = value;
    std::string err;
    provider.reset(gantry::openai::createOpenAiProvider(host, &err));
    REQUIRE(provider);
    ChatMessage user;
    user.content = "hello";
    messages.push_back(user);
  }

  Result<ChatResponse> chat(bool stream, const StreamCallbacks* callbacks = nullptr,
                            gantry::ToolList tools = nullptr) {
    ChatRequest request;
    request.messages = &messages;
    request.stream = stream;
    request.tools = std::move(tools);
    return provider->chat(request, callbacks, cancel);
  }
};

struct Recorder {
  std::vector<std::string> events;  // "text:…", "reasoning:…", "tool:0:name"
  std::string text;
  StreamCallbacks callbacks() {
    StreamCallbacks out;
    out.on_text = [this](std::string_view t) {
      events.push_back("text:" + std::string(t));
      text += t;
    };
    out.on_reasoning = [this](std::string_view t) {
      events.push_back("reasoning:" + std::string(t));
    };
    out.on_tool = [this](int i, std::string_view n) {
      events.push_back("tool:" + std::to_string(i) + ":" + std::string(n));
    };
    return out;
  }
};

}  // namespace

TEST_CASE("a plain reply comes back with usage and one attempt", "[openai]") {
  Bench bench;
  bench.server.addReply(
      R"({"content":"Hi there","usage":{"prompt_tokens":11,"completion_tokens":2}})");
  auto response = bench.chat(false);
  REQUIRE(response.isOk());
  CHECK(response->message.content == "Hi there");
  CHECK(response->message.role == Role::kAssistant);
  CHECK(response->usage.prompt_tokens == 11);
  CHECK(response->usage.completion_tokens == 2);
  CHECK(response->finish_reason == "stop");
  CHECK(response->attempts == 1);
  CHECK(response->first_token_ms == -1);
  CHECK(response->dur_ms >= 0);
  REQUIRE(bench.server.requests().size() == 1);
  CHECK(contains(bench.server.requests()[0], R"("model":"fake-model")"));
}

TEST_CASE("each call sends the list it is given, encoded once per list", "[openai]") {
  Bench bench;
  auto first = gantry::makeToolList({{"lookup", "Find a thing", R"({"type":"object"})"}});
  auto second = gantry::makeToolList({{"ping", "No arguments", ""}});
  for (const auto& tools : {first, first, second, first}) {
    REQUIRE(bench.chat(false, nullptr, tools).isOk());
  }
  auto names = [](const std::string& body) {
    Poco::JSON::Parser parser;
    auto tools = parser.parse(body).extract<Poco::JSON::Object::Ptr>()->getArray("tools");
    return tools->getObject(0)->getObject("function")->getValue<std::string>("name");
  };
  auto bodies = bench.server.requests();
  REQUIRE(bodies.size() == 4);
  CHECK(names(bodies[0]) == "lookup");
  CHECK(bodies[1] == bodies[0]);
  CHECK(names(bodies[2]) == "ping");
  CHECK(names(bodies[3]) == "lookup");
}

TEST_CASE("a constrained call is read whole, and its text answer comes back as the reply",
          "[openai]") {
  Bench bench;
  bench.server.addReply(
      R"({"content":"{\"name\":\"answer_in_text\",\"arguments\":{\"text\":\"No such tool.\"}}"})");
  Recorder recorder;
  StreamCallbacks callbacks = recorder.callbacks();
  ChatRequest request;
  request.messages = &bench.messages;
  request.stream = true;
  request.response_schema_json = R"({"type":"object"})";
  auto response = bench.provider->chat(request, &callbacks, bench.cancel);
  REQUIRE(response.isOk());
  CHECK(response->message.content == "No such tool.");
  CHECK(recorder.events.empty());  // none of the JSON was shown
  CHECK(contains(bench.server.requests()[0], R"("stream":false)"));
}

TEST_CASE("without a script the fake echoes the last user message", "[openai]") {
  Bench bench;
  auto response = bench.chat(false);
  REQUIRE(response.isOk());
  CHECK(response->message.content == "echo: hello");
}

TEST_CASE("streamed text reaches the callbacks in order and joins to the content", "[openai]") {
  Bench bench;
  bench.server.addReply(
      R"({"content":"A longer answer that arrives in several pieces.","usage":{"prompt_tokens":3,"completion_tokens":4}})");
  Recorder recorder;
  StreamCallbacks callbacks = recorder.callbacks();
  auto response = bench.chat(true, &callbacks);
  REQUIRE(response.isOk());
  CHECK(response->message.content == "A longer answer that arrives in several pieces.");
  CHECK(recorder.text == response->message.content);
  CHECK(recorder.events.size() > 3);
  CHECK(response->first_token_ms >= 0);
  CHECK(response->usage.completion_tokens == 4);
  CHECK(response->finish_reason == "stop");
  CHECK(contains(bench.server.requests()[0], R"("stream_options":{"include_usage":true})"));
}

TEST_CASE("tool calls arrive whole with and without streaming", "[openai]") {
  for (bool stream : {false, true}) {
    Bench bench;
    bench.server.addReply(
        R"({"tool_calls":[{"id":"c1","name":"memory_store","arguments":"{\"kind\":\"fact\",\"text\":\"likes tea\"}","thought_signature":"sig=="},{"id":"c2","name":"cron_list","arguments":"{}"}]})");
    Recorder recorder;
    StreamCallbacks callbacks = recorder.callbacks();
    auto response = bench.chat(stream, &callbacks);
    INFO("stream " << stream);
    REQUIRE(response.isOk());
    CHECK(response->finish_reason == "tool_calls");
    CHECK(response->message.content.empty());
    const auto& calls = response->message.tool_calls;
    REQUIRE(calls.size() == 2);
    CHECK(calls[0].id == "c1");
    CHECK(calls[0].name == "memory_store");
    CHECK(calls[0].arguments == R"({"kind":"fact","text":"likes tea"})");
    CHECK(calls[0].thought_signature == "sig==");
    CHECK(calls[1].id == "c2");
    CHECK(calls[1].arguments == "{}");
    if (stream)
      CHECK(recorder.events == std::vector<std::string>{"tool:0:memory_store", "tool:1:cron_list"});
  }
}

TEST_CASE("a tool round trip is accepted by the server and echoes the signature", "[openai]") {
  Bench bench;
  bench.server.addReply(
      R"({"tool_calls":[{"id":"c1","name":"memory_store","arguments":"{}","thought_signature":"sig"}]})");
  auto first = bench.chat(false);
  REQUIRE(first.isOk());
  bench.messages.push_back(first->message);
  ChatMessage result;
  result.role = Role::kTool;
  result.tool_call_id = first->message.tool_calls[0].id;
  result.content = "stored";
  bench.messages.push_back(result);
  auto second = bench.chat(false);
  REQUIRE(second.isOk());
  CHECK(second->message.content == "echo: hello");
  CHECK(contains(bench.server.requests()[1], R"("thought_signature":"sig")"));
}

TEST_CASE("a tool result without its call is refused with 400 and not retried", "[openai]") {
  Bench bench;
  ChatMessage orphan;
  orphan.role = Role::kTool;
  orphan.tool_call_id = "gone";
  orphan.content = "result";
  bench.messages.push_back(orphan);
  auto response = bench.chat(false);
  REQUIRE_FALSE(response.isOk());
  CHECK_FALSE(response.status().retryable());
  CHECK(contains(response.status().message(), "HTTP 400"));
  CHECK(contains(response.status().message(), "tool_call_id"));
  CHECK(bench.server.requests().size() == 1);
}

TEST_CASE("reasoning is kept apart from the reply in both reasoning fields", "[openai]") {
  for (const char* field : {"reasoning_content", "reasoning"}) {
    for (bool stream : {false, true}) {
      Bench bench;
      bench.server.addReply(std::string(R"({"reasoning":"thinking hard","reasoning_field":")") +
                            field + R"(","content":"<think>more</think>Answer"})");
      Recorder recorder;
      StreamCallbacks callbacks = recorder.callbacks();
      auto response = bench.chat(stream, &callbacks);
      INFO(field << " stream " << stream);
      REQUIRE(response.isOk());
      CHECK(response->message.content == "Answer");
      CHECK(response->message.reasoning == "thinking hardmore");
      if (stream) CHECK(recorder.text == "Answer");
    }
  }
}

TEST_CASE("a 429 with Retry-After is retried and then succeeds", "[openai]") {
  Bench bench;
  bench.server.addReply(R"({"status":429,"retry_after":1,"error_message":"Rate limit reached"})");
  bench.server.addReply(R"({"content":"after the wait"})");
  auto response = bench.chat(false);
  REQUIRE(response.isOk());
  CHECK(response->message.content == "after the wait");
  CHECK(response->attempts == 2);
  CHECK(bench.host.logged("retrying"));
}

TEST_CASE("a 500 is retried and then succeeds", "[openai]") {
  Bench bench;
  bench.server.addReply(R"({"status":500})");
  bench.server.addReply(R"({"content":"recovered"})");
  Recorder recorder;
  StreamCallbacks callbacks = recorder.callbacks();
  auto response = bench.chat(true, &callbacks);
  REQUIRE(response.isOk());
  CHECK(response->message.content == "recovered");
  CHECK(recorder.text == "recovered");
  CHECK(response->attempts == 2);
}

TEST_CASE("server errors give up after three retries", "[openai]") {
  Bench bench;
  for (int i = 0; i < 5; ++i) {
    bench.server.addReply(R"({"status":503,"retry_after":0,"error_message":"overloaded"})");
  }
  auto response = bench.chat(false);
  REQUIRE_FALSE(response.isOk());
  CHECK(response.status().retryable());
  CHECK(contains(response.status().message(), "HTTP 503"));
  CHECK(contains(response.status().message(), "overloaded"));
  CHECK(contains(response.status().message(), "4 attempts"));
  CHECK(bench.server.requests().size() == 4);
}

TEST_CASE("a 400 is not retried and carries the API's message", "[openai]") {
  Bench bench;
  bench.server.addReply(R"({"status":400,"error_message":"context length exceeded"})");
  bench.server.addReply(R"({"content":"never sent"})");
  auto response = bench.chat(false);
  REQUIRE_FALSE(response.isOk());
  CHECK_FALSE(response.status().retryable());
  CHECK(response.status().message() == "model: HTTP 400 Bad Request from " +
                                           bench.server.baseUrl() +
                                           "/chat/completions: context length exceeded");
  CHECK(bench.server.requests().size() == 1);
}

TEST_CASE("HTTP 401 and 404 name the settings to check", "[openai]") {
  Bench bench(Env{{"LLM_API_KEY", "wrong"}});
  bench.server.requireApiKey("right");
  auto unauthorized = bench.chat(false);
  REQUIRE_FALSE(unauthorized.isOk());
  CHECK(contains(unauthorized.status().message(), "model: HTTP 401 Unauthorized from http://"));
  CHECK(contains(unauthorized.status().message(), "(check LLM_API_KEY)"));
  bench.server.requireApiKey("wrong");
  bench.server.addReply(R"({"status":404,"error_message":"The model does not exist"})");
  auto missing = bench.chat(false);
  REQUIRE_FALSE(missing.isOk());
  CHECK(contains(missing.status().message(), "The model does not exist"));
  CHECK(contains(missing.status().message(), "(check LLM_MODEL and LLM_BASE_URL)"));
}

TEST_CASE("the API key is sent as a bearer token", "[openai]") {
  Bench bench(Env{{"LLM_API_KEY", "sk-right"}});
  bench.server.requireApiKey("sk-right");
  CHECK(bench.chat(false).isOk());
}

TEST_CASE("a malformed body is a clear error", "[openai]") {
  for (bool stream : {false, true}) {
    Bench bench;
    bench.server.addReply(stream ? R"({"body":"data: {not json\n\n"})"
                                 : R"({"body":"<html>oops"})");
    auto response = bench.chat(stream);
    INFO("stream " << stream);
    REQUIRE_FALSE(response.isOk());
    CHECK(contains(response.status().message(), "model: malformed response from http://"));
    CHECK(bench.server.requests().size() == 1);
  }
}

TEST_CASE("a reply body or stream event over its cap is a clear error, not held", "[openai]") {
  Bench bench;
  bench.server.addReply(R"({"body":"{\"pad\":\")" + std::string(17 << 20, 'x') + R"(\"}"})");
  auto whole = bench.chat(false);
  REQUIRE_FALSE(whole.isOk());
  CHECK(contains(whole.status().message(), "is over 16 MB"));
  bench.server.addReply(R"({"body":"data: )" + std::string(5 << 20, 'x') + R"(\n\n"})");
  auto streamed = bench.chat(true);
  REQUIRE_FALSE(streamed.isOk());
  CHECK(contains(streamed.status().message(), "a stream event over 4096 KB"));
}

TEST_CASE("a stalled stream fails at LLM_TIMEOUT_SECONDS", "[openai]") {
  Bench bench(Env{{"LLM_TIMEOUT_SECONDS", "2"}});
  bench.server.addReply(R"({"content":"starts then stalls for long","stall_ms":60000})");
  Recorder recorder;
  StreamCallbacks callbacks = recorder.callbacks();
  auto response = bench.chat(true, &callbacks);
  REQUIRE_FALSE(response.isOk());
  CHECK(contains(response.status().message(), "model: no"));
  CHECK(contains(response.status().message(), "2 s"));
  CHECK_FALSE(recorder.text.empty());
  CHECK(bench.server.requests().size() == 1);  // output was delivered: no retry
}

TEST_CASE("a slow non-streaming reply fails at LLM_TIMEOUT_SECONDS", "[openai]") {
  Bench bench(Env{{"LLM_TIMEOUT_SECONDS", "1"}});
  bench.server.addReply(R"({"content":"late","delay_ms":30000})");
  auto response = bench.chat(false);
  REQUIRE_FALSE(response.isOk());
  CHECK(contains(response.status().message(), "within 1 s (LLM_TIMEOUT_SECONDS)"));
}

TEST_CASE("a dropped connection is retried", "[openai]") {
  Bench bench;
  bench.server.addReply(R"({"drop":true})");
  bench.server.addReply(R"({"content":"second time lucky"})");
  auto response = bench.chat(true);
  REQUIRE(response.isOk());
  CHECK(response->message.content == "second time lucky");
  CHECK(response->attempts == 2);
}

TEST_CASE("an unreachable server fails with a message naming the URL", "[openai]") {
  std::uint16_t port = 0;
  {
    Poco::Net::ServerSocket probe(Poco::Net::SocketAddress("127.0.0.1", 0));
    port = probe.address().port();
  }
  FakeHost host;
  std::string url = "http://127.0.0.1:" + std::to_string(port) + "/v1";
  host.env = {{"LLM_BASE_URL", url}, {"LLM_MODEL", "m"}, {"LLM_TIMEOUT_SECONDS", "2"}};
  std::string err;
  std::unique_ptr<gantry::Provider> provider(gantry::openai::createOpenAiProvider(host, &err));
  REQUIRE(provider);
  std::vector<ChatMessage> messages(1);
  ChatRequest request;
  request.messages = &messages;
  CancelToken cancel;
  auto response = provider->chat(request, nullptr, cancel);
  REQUIRE_FALSE(response.isOk());
  CHECK(contains(response.status().message(), "model: request to " + url + "/chat/completions"));
  CHECK(contains(response.status().message(), "check LLM_BASE_URL"));
}

TEST_CASE("cancelling mid-stream interrupts the blocked read", "[openai]") {
  // Only an interrupted read ends this call before the test's CTest timeout (300 s): the
  // stall and both time limits are far longer.
  Bench bench(Env{{"LLM_TIMEOUT_SECONDS", "3600"}});
  bench.server.addReply(R"({"content":"first words then a long stall","stall_ms":3600000})");
  std::promise<void> first_text;
  bool signalled = false;
  StreamCallbacks callbacks;
  callbacks.on_text = [&](std::string_view) {
    if (!signalled) first_text.set_value();
    signalled = true;
  };
  std::thread canceller([&] {
    first_text.get_future().wait();
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
    bench.cancel.cancel();
  });
  auto response = bench.chat(true, &callbacks);
  canceller.join();
  REQUIRE_FALSE(response.isOk());
  CHECK(response.status().isCancelled());
}

TEST_CASE("cancelling during a retry wait returns cancelled", "[openai]") {
  Bench bench;
  bench.server.addReply(R"({"status":429,"retry_after":50})");
  std::thread canceller([&] {
    while (bench.server.requests().empty())
      std::this_thread::sleep_for(std::chrono::milliseconds(10));
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
    bench.cancel.cancel();
  });
  auto response = bench.chat(false);
  canceller.join();
  REQUIRE_FALSE(response.isOk());
  CHECK(response.status().isCancelled());
  CHECK(bench.server.requests().size() == 1);
}

TEST_CASE("a call on an already cancelled token does not reach the server", "[openai]") {
  Bench bench;
  bench.cancel.cancel();
  auto response = bench.chat(false);
  CHECK(response.status().isCancelled());
  CHECK(bench.server.requests().empty());
}

TEST_CASE("the fake writes each request body to the requests log", "[openai]") {
  std::string path = std::string(GANTRY_BUILD_DIR) + "/openai_requests_test.log";
  std::remove(path.c_str());
  Bench bench;
  bench.server.setRequestsLog(path);
  REQUIRE(bench.chat(false).isOk());
  REQUIRE(bench.chat(true).isOk());
  std::ifstream in(path);
  std::string line;
  std::vector<std::string> lines;
  while (std::getline(in, line)) lines.push_back(line);
  REQUIRE(lines.size() == 2);
  CHECK(lines[0] == bench.server.requests()[0]);
  CHECK(contains(lines[1], R"("stream":true)"));
}

TEST_CASE("consecutive calls reuse one keep-alive connection", "[openai]") {
  Bench bench;
  for (bool stream : {false, true, false, true}) REQUIRE(bench.chat(stream).isOk());
  CHECK(bench.server.requests().size() == 4);
  CHECK(bench.server.connections() == 1);
}

TEST_CASE("a pooled connection the server closed is replaced without a retry", "[openai]") {
  Bench bench;
  bench.server.addReply(R"({"content":"first","close":true})");
  bench.server.addReply(R"({"content":"second"})");
  REQUIRE(bench.chat(false).isOk());
  // Wait (bounded) until the server has closed the idle connection the provider keeps.
  for (int i = 0; i < 1000 && bench.server.openConnections() > 0; ++i) {
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  REQUIRE(bench.server.openConnections() == 0);
  auto second = bench.chat(false);
  REQUIRE(second.isOk());
  CHECK(second->message.content == "second");
  CHECK(second->attempts == 1);
  CHECK(bench.server.connections() == 2);
  CHECK_FALSE(bench.host.logged("retrying"));
}

TEST_CASE("the echo leaves out gantry's context blocks before the user's words", "[openai]") {
  Bench bench;
  bench.messages[0].content = "[memory]\n- (fact) sky: blue\n\n[now] 2026-11-30 22:00\n\nwhat now?";
  auto response = bench.chat(false);
  REQUIRE(response.isOk());
  CHECK(response->message.content == "echo: what now?");
}
