// End-to-end: the prompt the real gantry binary sends, read from the fake model's requests —
// the cache-stable prefix across turns (DESIGN 4 step 2) and collapsed tool results (4.2).
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

TEST_CASE("tool results older than the last four collapse within one turn", "[e2e]") {
  FakeOpenAiServer llm;
  // Each result ("no memory contains all of those words") is longer than the line it
  // collapses to; a shorter one would stay whole.
  for (int i = 1; i <= 6; ++i) {
    llm.addReply(toolCall("r" + std::to_string(i), "memory_forget",
                          R"({"query":"round )" + std::to_string(i) + R"("})"));
  }
  llm.addReply(R"({"content":"done"})");
  Workspace ws("collapse");
  auto r = runGantry(gantry::e2e::stdioEnv(ws, llm.port()), "dig deep\nthanks\n");
  INFO(r.err.substr(0, 3000));
  REQUIRE(r.code == 0);
  auto requests = llm.requests();
  REQUIRE(requests.size() == 8);
  const std::string collapsed = "[tool memory_forget: ";
  CHECK(count(requests[4], collapsed) == 0);  // four results, all whole
  CHECK(count(requests[5], collapsed) == 1);
  CHECK(count(requests[6], collapsed) == 2);
  CHECK(count(requests[6], "\"role\":\"tool\"") == 6);
  // The next turn, loaded from the record, collapses the same results the same way.
  std::string last_of_turn = messagesArray(requests[6]);
  last_of_turn.pop_back();
  CHECK(messagesArray(requests[7]).compare(0, last_of_turn.size(), last_of_turn) == 0);
}
