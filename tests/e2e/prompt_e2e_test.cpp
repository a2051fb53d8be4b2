// End-to-end: the prompt the real gantry binary sends, read from the fake model's requests —
// collapsed tool results (DESIGN 4.2).
#include <catch2/catch.hpp>

#include "e2e/support/gantry_process.h"
#include "openai/fake_openai_server.h"

using gantry::e2e::count;
using gantry::e2e::runGantry;
using gantry::e2e::Workspace;
using gantry::testing::FakeOpenAiServer;

namespace {

std::string toolCall(const std::string& id, const std::string& name, const std::string& args_json) {
  std::string escaped;
  for (char c : args_json) escaped += c == '"' ? std::string("\\\"") : std::string(1, c);
  return R"({"tool_calls":[{"id":")" + id + R"(","name":")" + name + R"(","arguments":")" +
         escaped + R"("}]})";
}

}  // namespace

TEST_CASE("tool results older than the last four collapse within one turn", "[e2e]") {
  FakeOpenAiServer llm;
  for (int i = 1; i <= 6; ++i) {
    llm.addReply(toolCall("r" + std::to_string(i), "memory_recall",
                          R"({"query":"round )" + std::to_string(i) + R"("})"));
  }
  llm.addReply(R"({"content":"done"})");
  Workspace ws("collapse");
  auto r = runGantry(gantry::e2e::stdioEnv(ws, llm.port()), "dig deep\n");
  INFO(r.err.substr(0, 3000));
  REQUIRE(r.code == 0);
  auto requests = llm.requests();
  REQUIRE(requests.size() == 7);
  const std::string collapsed = "[tool memory_recall: ";
  CHECK(count(requests[4], collapsed) == 0);  // four results, all whole
  CHECK(count(requests[5], collapsed) == 1);
  CHECK(count(requests[6], collapsed) == 2);
  CHECK(count(requests[6], "\"role\":\"tool\"") == 6);
}
