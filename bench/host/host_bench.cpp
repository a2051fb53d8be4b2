// Host overhead of the real gantry binary (stdio pipe, the fake model answering at once):
//   - time from exec to the "ready" log line (p50 of 10 starts; no MCP servers, no memory)
//   - resident and private memory after boot, idle
//   - per-turn wall time minus the time the model calls took, over 1,000 turns, under the
//     conditions of a used instance: 50 MCP tool schemas published eagerly (five
//     bench_tokens servers of ten tools, bench/tokens/servers.json), 10,000 memory rows, and
//     the history at its bound (HISTORY_MAX_MESSAGES=200) from the first measured turn; the
//     mean over the turns, and the median and 90th percentile of each turn's own figure
//   - the CPU time gantry's threads spent per turn (getrusage of the reaped child, less what
//     boot had used), which a loaded machine inflates far less than wall time
//   - the exchange floor: the turns' requests sent again by a client that does nothing else,
//     the least their model calls cost beyond the model's own time on this machine
#include <Poco/Net/HTTPClientSession.h>
#include <Poco/Net/HTTPRequest.h>
#include <Poco/Net/HTTPResponse.h>
#include <Poco/StreamCopier.h>
#include <sys/resource.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <stdexcept>
#include <thread>

#include "common/synthetic_memory.h"
#include "common/tokens_manifest.h"
#include "e2e/support/gantry_process.h"
#include "gantry/net/low_latency_session.h"
#include "openai/fake_openai_server.h"

using gantry::e2e::GantryProcess;
using gantry::e2e::Workspace;
using gantry::testing::FakeOpenAiServer;
using gantry::testing::ScriptedReply;
using Clock = std::chrono::steady_clock;
using namespace std::chrono_literals;

namespace {

constexpr int kMemoryRows = 10000;
constexpr int kWarmUpTurns = 100;  ///< two messages each: the history reaches its bound

long procField(int pid, const std::string& file, const std::string& field) {
  std::ifstream in("/proc/" + std::to_string(pid) + "/" + file);
  std::string line;
  long total = 0;
  while (std::getline(in, line)) {
    if (line.rfind(field, 0) == 0) total += std::stol(line.substr(field.size()));
  }
  return total;
}

void bootAndMemory(const gantry::e2e::Env& env) {
  std::vector<double> ms;
  long rss = 0, priv = 0;
  for (int i = 0; i < 10; ++i) {
    auto start = Clock::now();
    GantryProcess g(env);
    if (!g.waitForLog("\"msg\":\"ready\"", 30s)) {
      std::fprintf(stderr, "gantry did not become ready:\n%s\n", g.err().c_str());
      return;
    }
    ms.push_back(std::chrono::duration<double, std::milli>(Clock::now() - start).count());
    if (i == 0) {
      std::this_thread::sleep_for(1s);
      rss = procField(g.pid(), "status", "VmRSS:");
      priv = procField(g.pid(), "smaps_rollup", "Private_Clean:") +
             procField(g.pid(), "smaps_rollup", "Private_Dirty:");
    }
    g.closeInput();
    g.wait(30s);
  }
  std::sort(ms.begin(), ms.end());
  std::printf("exec to ready: p50 %.1f ms, max %.1f ms (10 starts)\n", ms[ms.size() / 2],
              ms.back());
  std::printf("idle after boot: RSS %ld KiB, private %ld KiB\n", rss, priv);
}

/// CPU milliseconds (user + system) of the children reaped so far.
double childrenCpuMs() {
  rusage usage{};
  ::getrusage(RUSAGE_CHILDREN, &usage);
  auto ms = [](const timeval& t) {
    return static_cast<double>(t.tv_sec) * 1e3 + static_cast<double>(t.tv_usec) / 1e3;
  };
  return ms(usage.ru_utime) + ms(usage.ru_stime);
}

/// CPU milliseconds every live thread of pid has run (/proc/PID/task/*/schedstat).
double threadsCpuMs(int pid) {
  double ns = 0;
  for (const auto& task :
       std::filesystem::directory_iterator("/proc/" + std::to_string(pid) + "/task")) {
    std::ifstream in(task.path() / "schedstat");
    double run = 0;
    if (in >> run) ns += run;
  }
  return ns / 1e6;
}

gantry::e2e::Env benchEnv(const Workspace& ws, int llm_port) {
  auto env = gantry::e2e::stdioEnv(ws, llm_port);
  env["LOG_LEVEL"] = "info";
  env["CRON_ENABLED"] = "false";
  // Measures gantry as the packaged unit runs it when given the unit's malloc setting.
  if (const char* tunables = std::getenv("GLIBC_TUNABLES")) env["GLIBC_TUNABLES"] = tunables;
  // Another build's binary, measured beside this one in the same conditions.
  if (const char* wrapper = std::getenv(gantry::e2e::kWrapper))
    env[gantry::e2e::kWrapper] = wrapper;
  return env;
}

/// Each reply ends with it, and nothing else gantry prints holds it: the turns are done when
/// stdout holds it once a turn.
constexpr const char* kReplyEnd = "noted";

/// A turn's reply: "noted", or with BENCH_REPLY_CHARS=N at least N characters of prose, for
/// what replies of the size a model writes cost.
std::string turnReply() {
  const char* chars = std::getenv("BENCH_REPLY_CHARS");
  if (chars == nullptr) return kReplyEnd;
  const auto wanted = static_cast<std::size_t>(std::max(1, std::atoi(chars)));
  std::string reply;
  while (reply.size() < wanted) {
    reply += "Here is a sentence of an ordinary reply, with words and 42 numbers. ";
  }
  return reply + kReplyEnd;
}

/// Every turn gets turnReply(); the history fold gets a short summary (else the summary would
/// grow with every fold).
ScriptedReply respond(const std::string& body) {
  static const std::string kTurnReply = turnReply();
  ScriptedReply reply;
  reply.content = body.find("You maintain the running summary") != std::string::npos
                      ? "The user sent benchmark turns of synthetic words."
                      : kTurnReply;
  return reply;
}

/// Memory rows stored before the instance starts, from the words the turns use.
void seedMemory(const Workspace& ws, gantry::bench::Words& words) {
  auto store = gantry::store::Store::open(ws.data() + "/gantry.db");
  if (!store.isOk()) throw std::runtime_error(store.status().message());
  gantry::store::MemoryRepo repo(*store.value());
  const int64_t now = gantry::store::nowMs();
  for (int i = 0; i < kMemoryRows; ++i) {
    auto stored = repo.insert(gantry::bench::memoryRow(words, now));
    if (!stored.isOk()) throw std::runtime_error(stored.status().message());
  }
}

std::string lines(gantry::bench::Words& words, int n) {
  std::string input;
  for (int i = 0; i < n; ++i) input += words.sentence(words.between(4, 16)) + "\n";
  return input;
}

/// Each turn's host overhead in milliseconds: from the reply before it (the first turn: from
/// start) to the arrival of its own reply on stdout, less the fake's time on the requests that
/// ended in between. Two replies read at once make one turn's figure 0 and the next one's the
/// two turns' (the mean is unchanged).
std::vector<double> turnOverheadsMs(const GantryProcess& g, Clock::time_point start,
                                    const std::vector<FakeOpenAiServer::Handling>& handlings) {
  const std::string out = g.out();
  const std::string_view end_mark = kReplyEnd;
  std::vector<double> overheads;
  Clock::time_point from = start;
  std::size_t next = 0;  // handlings end in order: one request at a time
  for (auto at = out.find(end_mark); at != std::string::npos; at = out.find(end_mark, at + 1)) {
    const Clock::time_point replied = g.outputArrivedBy(at + end_mark.size());
    double model_ms = 0;
    for (; next < handlings.size() && handlings[next].end <= replied; ++next) {
      if (handlings[next].end > from) model_ms += handlings[next].ms;
    }
    overheads.push_back(std::chrono::duration<double, std::milli>(replied - from).count() -
                        model_ms);
    from = replied;
  }
  return overheads;
}

/// The q-quantile (0..1) of values, nearest rank.
double quantile(std::vector<double> values, double q) {
  if (values.empty()) return 0;
  const auto at = static_cast<std::size_t>(std::lround(q * static_cast<double>(values.size() - 1)));
  std::nth_element(values.begin(), values.begin() + static_cast<std::ptrdiff_t>(at), values.end());
  return values[at];
}

/// The least the given requests cost beyond the model's own time: each sent again as the fake
/// received it by a client that does nothing else, on one kept-alive connection as gantry
/// sends them (gantry's LowLatencySession: the header, then the body in one write,
/// TCP_NODELAY), its reply read whole, less the fake's handling. Milliseconds, all of them.
double exchangeFloorMs(const FakeOpenAiServer& llm, const std::vector<std::string>& bodies) {
  gantry::net::LowLatencySession<Poco::Net::HTTPClientSession> session("127.0.0.1", llm.port());
  session.setKeepAlive(true);
  const double handled_before = llm.handlingMs();
  const auto start = Clock::now();
  for (const auto& body : bodies) {
    Poco::Net::HTTPRequest request(Poco::Net::HTTPRequest::HTTP_POST, "/v1/chat/completions",
                                   Poco::Net::HTTPMessage::HTTP_1_1);
    request.setContentType("application/json");
    request.set("Accept", "application/json");
    session.sendWhole(request, body);
    Poco::Net::HTTPResponse response;
    std::istream& in = session.receiveResponse(response);
    std::string reply;
    Poco::StreamCopier::copyToString(in, reply);
    if (response.getStatus() != Poco::Net::HTTPResponse::HTTP_OK) {
      throw std::runtime_error("the exchange floor's request got " +
                               std::to_string(response.getStatus()));
    }
  }
  const double wall_ms = std::chrono::duration<double, std::milli>(Clock::now() - start).count();
  return wall_ms - (llm.handlingMs() - handled_before);
}

/// Host overhead is the wall time from the first message written to the last reply read,
/// less the time the fake model spent handling requests (to the microsecond: the log's dur_ms
/// is whole milliseconds, and gantry's encoding and sending of a request are host work). What
/// follows the last reply (the end of input: indexing the turns' messages, the last
/// checkpoint, stopping the MCP servers) is the process ending, reported on a line of its own.
void turns(const gantry::e2e::Env& env, const FakeOpenAiServer& llm, const std::string& input,
           int n) {
  const double reaped_before = childrenCpuMs();
  GantryProcess g(env);
  if (!g.waitForLog("\"msg\":\"ready\"", 30s)) return;
  const double boot_cpu_ms = threadsCpuMs(g.pid());
  const double handled_before = llm.handlingMs();
  const std::size_t requests_before = llm.requestCount();
  auto start = Clock::now();
  g.write(input);
  g.closeInput();
  g.wait(600s);
  const auto exited = Clock::now();
  // Nothing follows the last reply on stdout: its arrival ends the turns.
  const auto replied = g.lastOutputAt();
  if (gantry::e2e::count(g.out(), kReplyEnd) != n) throw std::runtime_error("a turn got no reply");
  const double reaped_ms = childrenCpuMs() - reaped_before - boot_cpu_ms;
  const double model_ms = llm.handlingMs() - handled_before;
  const auto ms = [](Clock::duration d) {
    return std::chrono::duration<double, std::milli>(d).count();
  };
  const double wall_ms = ms(replied - start);
  std::printf("%d turns: wall %.1f ms/turn, model %.2f ms/turn, host overhead %.2f ms/turn\n", n,
              wall_ms / n, model_ms / n, (wall_ms - model_ms) / n);
  const auto each = turnOverheadsMs(g, start, llm.handlings());
  std::printf("%d turns: host overhead a turn, median %.2f ms, 90th percentile %.2f ms\n", n,
              quantile(each, 0.5), quantile(each, 0.9));
  // The channel records each piped message in the durable inbox as it arrives, all of them
  // during the first turn: the mean has that work, the median none of it.
  if (!each.empty()) {
    std::printf(
        "%d turns: the first turn %.2f ms (meanwhile the channel records all %d piped messages "
        "in the durable inbox)\n",
        n, each.front(), n);
  }
  std::printf("%d turns: gantry CPU %.2f ms/turn (model client included, boot excluded)\n", n,
              reaped_ms / n);
  std::printf("after the last reply: exit in %.0f ms\n", ms(exited - replied));
  const auto requests = llm.requests(requests_before);
  std::printf(
      "%d turns: exchange floor %.2f ms/turn (their %zu requests sent again by a bare "
      "client, beyond the model's time)\n",
      n, exchangeFloorMs(llm, requests) / n, requests.size());
}

void loadedTurns(gantry::e2e::Env env, const FakeOpenAiServer& llm, Workspace& ws, int n) {
  gantry::bench::Words words(5000);
  seedMemory(ws, words);
  ws.write("mcp.toml", gantry::bench::tokensManifest());
  env["TOOL_PUBLISH"] = "eager";
  env["HISTORY_MAX_MESSAGES"] = "200";
  if (gantry::e2e::runGantry(env, lines(words, kWarmUpTurns)).code != 0) {
    throw std::runtime_error("the warm-up turns failed");
  }
  std::printf(
      "conditions: %d memory rows, %zu MCP servers of 10 tools (eager), history at "
      "HISTORY_MAX_MESSAGES=200 after %d warm-up turns\n",
      kMemoryRows, gantry::bench::kTokensServerCount, kWarmUpTurns);
  turns(env, llm, lines(words, n), n);
}

}  // namespace

int main(int argc, char** argv) try {
  int n = argc > 1 ? std::atoi(argv[1]) : 1000;
  FakeOpenAiServer llm;
  llm.setResponder(respond);
  Workspace boot_ws("bench");
  bootAndMemory(benchEnv(boot_ws, llm.port()));
  Workspace ws("bench-turns");
  loadedTurns(benchEnv(ws, llm.port()), llm, ws, n);
  return 0;
} catch (const std::exception& e) {
  std::fprintf(stderr, "bench_host: %s\n", e.what());
  return 1;
}
