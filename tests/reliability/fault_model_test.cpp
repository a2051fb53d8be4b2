// The fault matrix, model endpoint: what an OpenAI-compatible server can do wrong, through the
// real binary on the stdio channel. (429 with Retry-After is in tests/e2e/core_e2e_test.cpp.)
#include <atomic>
#include <catch2/catch.hpp>

#include "openai/fake_openai_server.h"
#include "reliability/fault_support.h"

using gantry::e2e::count;
using gantry::e2e::Env;
using gantry::e2e::GantryProcess;
using gantry::e2e::runGantry;
using gantry::e2e::Workspace;
using gantry::testing::FakeOpenAiServer;
using gantry::testing::ScriptedReply;
using namespace std::chrono_literals;

namespace {

Env env(const Workspace& ws, int port, const Env& extra = {}) {
  Env env = gantry::e2e::stdioEnv(ws, port);
  env["MEMORY_ENABLED"] = "false";
  for (const auto& [key, value] : extra) env[key] = value;
  return env;
}

void requireSound(const Workspace& ws) {
  std::string why;
  const bool sound = gantry::faults::recordSound(ws, &why);
  INFO(why);
  CHECK(sound);
}

}  // namespace

TEST_CASE("a model endpoint answering 503 then 500 is retried and the reply arrives once",
          "[faults][model]") {
  FakeOpenAiServer llm;
  llm.addReply(R"({"status":503,"error_message":"overloaded"})");
  llm.addReply(R"({"status":500,"error_message":"internal"})");
  llm.addReply(R"({"content":"answered after two server errors"})");
  Workspace ws("fault-5xx");
  auto r = runGantry(env(ws, llm.port()), "first\nsecond\n");
  INFO(r.err);
  CHECK(r.code == 0);
  CHECK(count(r.out, "answered after two server errors") == 1);
  CHECK(r.out.find("echo: second") != std::string::npos);
  CHECK(llm.requests().size() == 4);
  requireSound(ws);
}

TEST_CASE("a model endpoint that stays down tells the owner once and the next message is answered",
          "[faults][model]") {
  FakeOpenAiServer llm;
  std::atomic<bool> down{true};
  llm.setResponder([&](const std::string&) {
    ScriptedReply reply;
    if (down) {
      reply.status = 503;
      reply.error_message = "the model is loading";
    } else {
      reply.content = "up again";
    }
    return reply;
  });
  Workspace ws("fault-down");
  GantryProcess g(env(ws, llm.port(), {{"LLM_TIMEOUT_SECONDS", "2"}}));
  g.write("are you there\n");
  REQUIRE(g.waitForOutput("the model is loading", 30s));
  down = false;
  g.write("and now\n");
  REQUIRE(g.waitForOutput("up again", 30s));
  g.closeInput();
  CHECK(g.wait(30s) == 1);  // the first turn failed
  INFO(g.err());
  CHECK(count(g.out(), "the model is loading") == 1);
  requireSound(ws);
}

TEST_CASE("a refused connection to the model tells the owner once, then the model comes up",
          "[faults][model]") {
  const std::uint16_t port = gantry::faults::closedPort();
  Workspace ws("fault-refused");
  GantryProcess g(env(ws, port, {{"LLM_TIMEOUT_SECONDS", "2"}}));
  g.write("hello\n");
  REQUIRE(g.waitForOutput("check LLM_BASE_URL", 30s));
  FakeOpenAiServer llm(port);
  g.write("hello again\n");
  REQUIRE(g.waitForOutput("echo: hello again", 30s));
  g.closeInput();
  CHECK(g.wait(30s) == 1);  // the first turn failed
  INFO(g.out() << g.err());
  CHECK(count(g.out(), "check LLM_BASE_URL") == 1);
  requireSound(ws);
}

TEST_CASE("a stream that stalls mid-reply fails at the silence limit and the next turn works",
          "[faults][model]") {
  FakeOpenAiServer llm;
  llm.addReply(R"({"content":"this starts and then goes quiet","stall_ms":60000})");
  Workspace ws("fault-stall");
  auto r =
      runGantry(env(ws, llm.port(), {{"STREAM_REPLIES", "true"}, {"LLM_TIMEOUT_SECONDS", "2"}}),
                "stall\nafter the stall\n");
  INFO(r.err);
  CHECK(r.code == 1);  // the stalled turn failed
  CHECK(count(r.out, "LLM_TIMEOUT_SECONDS") == 1);
  CHECK(r.out.find("echo: after the stall") != std::string::npos);
  CHECK(llm.requests().size() == 2);  // text had reached the owner: not retried
  requireSound(ws);
}

TEST_CASE("a stream cut mid-tool-call runs no half call and is retried whole", "[faults][model]") {
  FakeOpenAiServer llm;
  const std::string call = gantry::faults::toolCallLine("fake__echo", R"({"text":"only once"})");
  llm.addReply(call.substr(0, call.size() - 1) + R"(,"cut_mid_call":true})");
  llm.addReply(call);
  llm.addReply(R"({"content":"the tool said only once"})");
  Workspace ws("fault-cut");
  ws.write("mcp.toml", gantry::faults::fakeMcpManifest());
  auto r = runGantry(env(ws, llm.port(), {{"STREAM_REPLIES", "true"}}), "call it\n");
  INFO(r.err);
  CHECK(r.code == 0);
  CHECK(count(r.out, "the tool said only once") == 1);
  CHECK(count(r.err, R"("msg":"tool_call","name":"fake__echo")") == 1);
  CHECK(llm.requests().size() == 3);
  requireSound(ws);
}

TEST_CASE("a reply that is not JSON tells the owner once and the next turn works",
          "[faults][model]") {
  FakeOpenAiServer llm;
  llm.addReply(R"({"body":"{\"choices\": [ this is not json"})");
  Workspace ws("fault-json");
  auto r = runGantry(env(ws, llm.port()), "broken\nnext\n");
  INFO(r.out << r.err);
  CHECK(r.code == 1);  // the broken turn failed
  CHECK(count(r.out, "model: malformed response") == 1);
  CHECK(r.out.find("echo: next") != std::string::npos);
  requireSound(ws);
}

TEST_CASE("a 50 MB reply body is refused at its cap, not held, and the next turn works",
          "[faults][model]") {
  FakeOpenAiServer llm;
  const std::string huge(50u << 20, 'x');
  llm.addReply(R"({"body":"{\"choices\":[{\"index\":0,\"message\":{\"role\":\"assistant\",)"
               R"(\"content\":\")" +
               huge + R"(\"},\"finish_reason\":\"stop\"}]}"})");
  Workspace ws("fault-50mb");
  auto r = runGantry(env(ws, llm.port()), "huge\nsmall\n");
  INFO(r.err.substr(0, 4000));
  CHECK(r.code == 1);  // the huge turn failed
  CHECK(r.out.size() < 10000);
  CHECK(r.out.find("is over 16 MB") != std::string::npos);
  CHECK(count(r.out, "model:") == 1);
  CHECK(r.out.find("echo: small") != std::string::npos);
  requireSound(ws);
}

TEST_CASE("a reply with 500 tool calls runs each once and the turn ends with the answer",
          "[faults][model]") {
  FakeOpenAiServer llm;
  std::string calls = R"({"tool_calls":[)";
  for (int i = 0; i < 500; ++i) {
    calls += (i ? "," : "") + std::string(R"({"id":"c)") + std::to_string(i) +
             R"(","name":"fake__echo","arguments":"{\"text\":\"n)" + std::to_string(i) + R"(\"}"})";
  }
  llm.addReply(calls + "]}");
  llm.addReply(R"({"content":"five hundred results read"})");
  Workspace ws("fault-500");
  ws.write("mcp.toml", gantry::faults::fakeMcpManifest());
  auto r = runGantry(env(ws, llm.port()), "many\n", {"run"}, 120s);
  INFO(r.err.substr(0, 4000));
  CHECK(r.code == 0);
  CHECK(count(r.out, "five hundred results read") == 1);
  // A third request may follow the reply: the fold the long turn made due.
  REQUIRE(llm.requests().size() >= 2);
  CHECK(count(llm.requests()[1], R"("role":"tool")") == 500);
  CHECK(count(r.err, R"("msg":"tool_call","name":"fake__echo")") == 500);
  requireSound(ws);
}
