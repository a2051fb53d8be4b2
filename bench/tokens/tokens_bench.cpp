// Prompt tokens with five MCP servers of ten tools each (bench/tokens/servers.json, shaped
// like the official servers' tools), eager against lazy publishing, through the real gantry
// binary and the fake model:
//   - a "hello" turn: gantry's estimate of the standing prompt (`gantry tokens`, chars/4) and
//     its part beyond the persona, beside what the fake model reports (request bytes / 4);
//   - a turn that needs the time server: the same, and across the call that enables it (lazy)
//     how many bytes of the earlier request's tools and messages the next request keeps.
#include <cstdio>
#include <map>
#include <sstream>
#include <string>
#include <vector>

#include "common/tokens_manifest.h"
#include "e2e/support/gantry_process.h"
#include "e2e/support/request_json.h"
#include "openai/fake_openai_server.h"

using gantry::e2e::runGantry;
using gantry::e2e::Workspace;
using gantry::testing::FakeOpenAiServer;

namespace {

std::size_t commonPrefix(const std::string& a, const std::string& b) {
  std::size_t n = 0;
  while (n < a.size() && n < b.size() && a[n] == b[n]) ++n;
  return n;
}

/// `gantry tokens` rows: part -> est. tokens.
std::map<std::string, long> tokenRows(const gantry::e2e::Env& env) {
  std::map<std::string, long> rows;
  std::istringstream in(runGantry(env, "", {"tokens"}).out);
  for (std::string line; std::getline(in, line);) {
    auto tab = line.find('\t');
    if (tab == std::string::npos || line.rfind("chat\t", 0) == 0) continue;
    rows[line.substr(0, tab)] = std::atol(line.c_str() + tab + 1);
  }
  return rows;
}

struct Turn {
  long est_total = 0, est_persona = 0;
  long reported_first_call = 0;  ///< the fake's count for the turn's first request
  std::size_t tools_published = 0;
};

std::size_t countTools(const std::string& tools) {
  std::size_t n = 0;
  for (auto at = tools.find("\"type\":\"function\""); at != std::string::npos;
       at = tools.find("\"type\":\"function\"", at + 1)) {
    ++n;
  }
  return n;
}

Turn measure(const gantry::e2e::Env& env, const std::string& first_body) {
  auto rows = tokenRows(env);
  return {rows["total"], rows["persona"], static_cast<long>(first_body.size() / 4),
          countTools(gantry::e2e::jsonArray(first_body, "tools"))};
}

void printTurn(const char* mode, const char* turn, const Turn& t) {
  std::printf(
      "%-5s %-14s est. %6ld tokens (%6ld beyond the persona)  fake-reported %6ld  "
      "tools %zu\n",
      mode, turn, t.est_total, t.est_total - t.est_persona, t.reported_first_call,
      t.tools_published);
}

void run(const std::string& mode) {
  FakeOpenAiServer llm;
  Workspace ws("bench-tokens-" + mode);
  ws.write("mcp.toml", gantry::bench::tokensManifest());
  auto env = gantry::e2e::stdioEnv(ws, llm.port());
  env["TOOL_PUBLISH"] = mode;
  llm.addReply(R"({"content":"Hello! What can I do for you?"})");
  if (runGantry(env, "hello\n").code != 0) return (void)std::fprintf(stderr, "hello failed\n");
  auto hello = measure(env, llm.requests().at(0));

  if (mode == "lazy") {
    llm.addReply(
        R"({"tool_calls":[{"id":"e1","name":"mcp_enable","arguments":"{\"server\":\"time\"}"}]})");
  }
  llm.addReply(R"({"tool_calls":[{"id":"t1","name":"time__get_current_time",)"
               R"("arguments":"{\"timezone\":\"Asia/Tokyo\"}"}]})");
  llm.addReply(R"({"content":"It is 09:00 in Tokyo."})");
  if (runGantry(env, "what time is it in Tokyo?\n").code != 0) {
    return (void)std::fprintf(stderr, "the time turn failed\n");
  }
  auto requests = llm.requests();
  auto timed = measure(env, requests.at(1));
  printTurn(mode.c_str(), "hello", hello);
  printTurn(mode.c_str(), "needs time", timed);
  // Across the turn's second call: after mcp_enable (lazy) or after the time call (eager).
  const std::string& before = requests.at(1);
  const std::string& after = requests.at(2);
  using gantry::e2e::jsonArray;
  auto tools_before = jsonArray(before, "tools"), tools_after = jsonArray(after, "tools");
  auto msgs_before = jsonArray(before, "messages"), msgs_after = jsonArray(after, "messages");
  // The closing bracket of an array that grows is the one byte that cannot stay.
  std::printf(
      "%-5s next call keeps %zu of %zu bytes of the tools array and %zu of %zu of the "
      "messages array (+%zu tools)\n",
      mode.c_str(), commonPrefix(tools_before, tools_after), tools_before.size(),
      commonPrefix(msgs_before, msgs_after), msgs_before.size(),
      countTools(tools_after) - countTools(tools_before));
}

}  // namespace

int main() {
  std::printf(
      "5 MCP servers x 10 tools (bench/tokens/servers.json); est. = gantry tokens "
      "(chars/4), fake-reported = request bytes / 4 of the turn's first call\n");
  run("eager");
  run("lazy");
  return 0;
}
