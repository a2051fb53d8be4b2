// End-to-end: the prompt the real gantry binary sends, read from the fake model's requests —
// the cache-stable prefix across turns (DESIGN 4 step 2) and collapsed tool results (4.2).
#include <atomic>
#include <catch2/catch.hpp>
#include <thread>

#include "e2e/support/gantry_process.h"
#include "e2e/support/request_json.h"
#include "openai/fake_openai_server.h"

using gantry::e2e::count;
using gantry::e2e::GantryProcess;
using gantry::e2e::runGantry;
using gantry::e2e::Workspace;
using gantry::testing::FakeOpenAiServer;
using namespace std::chrono_literals;

namespace {

std::string toolCall(const std::string& id, const std::string& name, const std::string& args_json) {
  std::string escaped;
  for (char c : args_json) escaped += c == '"' ? std::string("\\\"") : std::string(1, c);
  return R"({"tool_calls":[{"id":")" + id + R"(","name":")" + name + R"(","arguments":")" +
         escaped + R"("}]})";
}

// The bytes of the request's "messages" array, from '[' to its matching ']' (included).
std::string messagesArray(const std::string& body) {
  std::string array = gantry::e2e::jsonArray(body, "messages");
  REQUIRE(!array.empty());
  return array;
}

}  // namespace

TEST_CASE("every request's messages reappear byte for byte at the start of the next request",
          "[e2e]") {
  FakeOpenAiServer llm;
  llm.addReply(R"({"content":"hi there"})");  // turn 1: a plain reply
  llm.addReply(toolCall("s1", "memory_store",
                        R"({"kind":"person","subject":"mom","content":"prefers calls"})"));
  llm.addReply(R"({"content":"stored"})");  // turn 2: one tool round
  llm.addReply(toolCall("r1", "memory_recall", R"({"query":"mom"})"));
  llm.addReply(toolCall("r2", "memory_recall", R"({"query":"calls"})"));
  llm.addReply(R"({"content":"she prefers calls"})");  // turn 3: two tool rounds
  // turn 4: the fake's echo
  Workspace ws("prefix");
  auto env = gantry::e2e::stdioEnv(ws, llm.port());
  env["CRON_TZ"] = "Pacific/Auckland";
  auto r = runGantry(env, "hello\nremember mom prefers calls\nhow does mom like to talk?\nbye\n");
  INFO(r.err.substr(0, 3000));
  REQUIRE(r.code == 0);
  CHECK(r.out.find("echo: bye") != std::string::npos);
  auto requests = llm.requests();
  REQUIRE(requests.size() == 7);
  for (std::size_t n = 0; n + 1 < requests.size(); ++n) {
    std::string earlier = messagesArray(requests[n]);
    std::string later = messagesArray(requests[n + 1]);
    INFO("request " << n << ": " << earlier << "\nrequest " << n + 1 << ": " << later);
    earlier.pop_back();  // the closing ']': the next request goes on after the same bytes
    CHECK(later.compare(0, earlier.size(), earlier) == 0);
    CHECK(later.size() > earlier.size());
  }
  // The time is told in CRON_TZ; the memory block rides on the message it was sent with.
  CHECK(count(requests[0], "[now] ") == 1);
  CHECK(requests[0].find(", Pacific/Auckland") != std::string::npos);
  CHECK(count(requests[6], "[now] ") == 4);
  CHECK(count(requests[6], "(person) mom: prefers calls") >= 1);
  // Turn 3 is the first with a memory to hydrate; turn 4's block is the same and not repeated.
  CHECK(count(requests[2], "[memory]\\n") == 0);
  CHECK(count(requests[3], "[memory]\\n") == 1);
  CHECK(count(requests[6], "[memory]\\n") == 1);
}

TEST_CASE("tool results stay whole within a turn and after it while the history is in bounds",
          "[e2e]") {
  FakeOpenAiServer llm;
  for (int i = 1; i <= 6; ++i) {
    llm.addReply(toolCall("r" + std::to_string(i), "memory_recall",
                          R"({"query":"round )" + std::to_string(i) + R"("})"));
  }
  llm.addReply(R"({"content":"done"})");
  Workspace ws("whole");
  auto r = runGantry(gantry::e2e::stdioEnv(ws, llm.port()), "dig deep\nthanks\n");
  INFO(r.err.substr(0, 3000));
  REQUIRE(r.code == 0);
  auto requests = llm.requests();
  REQUIRE(requests.size() == 8);
  CHECK(count(requests[7], "[tool memory_recall: ") == 0);
  for (std::size_t n = 0; n + 1 < requests.size(); ++n) {
    std::string earlier = messagesArray(requests[n]);
    earlier.pop_back();
    CHECK(messagesArray(requests[n + 1]).compare(0, earlier.size(), earlier) == 0);
  }
}

TEST_CASE("a turn whose own context passes the bounds collapses all but its last four results",
          "[e2e]") {
  FakeOpenAiServer llm;
  // Each result ("no memory contains all of those words") is longer than the line it
  // collapses to; a shorter one would stay whole.
  for (int i = 1; i <= 6; ++i) {
    llm.addReply(toolCall("r" + std::to_string(i), "memory_forget",
                          R"({"query":"round )" + std::to_string(i) + R"("})"));
  }
  llm.addReply(R"({"content":"done"})");
  Workspace ws("collapse");
  auto env = gantry::e2e::stdioEnv(ws, llm.port());
  env["HISTORY_MAX_MESSAGES"] = "10";
  auto r = runGantry(env, "dig deep\nthanks\n");
  INFO(r.err.substr(0, 3000));
  REQUIRE(r.code == 0);
  auto requests = llm.requests();
  REQUIRE(requests.size() >= 7);
  const std::string collapsed = "[tool memory_forget: ";
  CHECK(count(requests[4], collapsed) == 0);  // ten messages: within the bounds
  CHECK(count(requests[5], collapsed) == 1);  // eleven: all but the last four results
  CHECK(count(requests[6], collapsed) == 2);
  CHECK(count(requests[6], "\"role\":\"tool\"") == 6);
}

TEST_CASE("a turn that starts while a fold runs does not wait for it, and the next has the summary",
          "[e2e]") {
  FakeOpenAiServer llm;
  std::atomic<int> replies{0};
  llm.setResponder([&replies](const std::string& body) {
    gantry::testing::ScriptedReply reply;
    if (body.find("You maintain the running summary") != std::string::npos) {
      reply.content = "The user counted.";
      reply.delay_ms = 3000;
    } else {
      reply.content = "r" + std::to_string(++replies);
    }
    return reply;
  });
  Workspace ws("foldafter");
  auto env = gantry::e2e::stdioEnv(ws, llm.port());
  env["HISTORY_MAX_MESSAGES"] = "6";
  GantryProcess gantry(env);
  const std::vector<std::string> first = {"one", "two", "three"};
  for (std::size_t i = 0; i < first.size(); ++i) {
    gantry.write(first[i] + "\n");
    REQUIRE(gantry.waitForOutput("r" + std::to_string(i + 1), 10s));
  }
  // Six messages now: another turn would pass the cap, so a fold is under way.
  const auto start = std::chrono::steady_clock::now();
  gantry.write("four\n");
  REQUIRE(gantry.waitForOutput("r4", 10s));
  CHECK(std::chrono::steady_clock::now() - start < 2500ms);  // the fold takes 3 s
  REQUIRE(gantry.waitForLog("history_trimmed", 10s));
  gantry.write("five\n");
  REQUIRE(gantry.waitForOutput("r5", 10s));
  gantry.closeInput();
  CHECK(gantry.wait() == 0);
  std::vector<std::string> turns;
  for (const auto& body : llm.requests()) {
    if (body.find("You maintain the running summary") == std::string::npos) turns.push_back(body);
  }
  INFO(gantry.err().substr(0, 3000));
  REQUIRE(turns.size() == 5);
  CHECK(turns[3].find("one\"") != std::string::npos);  // the history as it was
  CHECK(turns[3].find("The user counted.") == std::string::npos);
  CHECK(turns[4].find("The user counted.") != std::string::npos);
  CHECK(turns[4].find("one\"") == std::string::npos);
}
