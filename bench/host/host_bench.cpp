// Host overhead of the real gantry binary (stdio pipe, the fake model answering at once):
//   - time from exec to the "ready" log line (p50 of 10 starts)
//   - resident and private memory after boot, idle
//   - per-turn wall time minus the time the model call took, over 1,000 turns
//   - the CPU time gantry's threads spent per turn (getrusage of the reaped child, less what
//     boot had used), which a loaded machine inflates far less than wall time
#include <sys/resource.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <regex>
#include <sstream>
#include <thread>

#include "e2e/support/gantry_process.h"
#include "openai/fake_openai_server.h"

using gantry::e2e::GantryProcess;
using gantry::e2e::Workspace;
using Clock = std::chrono::steady_clock;
using namespace std::chrono_literals;

namespace {

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

void turns(const gantry::e2e::Env& env, int n) {
  std::string input;
  for (int i = 0; i < n; ++i) input += "message number " + std::to_string(i) + "\n";
  const double reaped_before = childrenCpuMs();
  GantryProcess g(env);
  if (!g.waitForLog("\"msg\":\"ready\"", 30s)) return;
  const double boot_cpu_ms = threadsCpuMs(g.pid());
  auto start = Clock::now();
  g.write(input);
  g.closeInput();
  g.wait(600s);
  double wall_ms = std::chrono::duration<double, std::milli>(Clock::now() - start).count();
  double cpu_ms = childrenCpuMs() - reaped_before - boot_cpu_ms;
  std::regex model(R"re("msg":"model_call".*"dur_ms":"(\d+)")re");
  double model_ms = 0;
  int calls = 0;
  std::istringstream err(g.err());
  std::string line;
  while (std::getline(err, line)) {
    std::smatch m;
    if (std::regex_search(line, m, model)) model_ms += std::stod(m[1]), ++calls;
  }
  std::printf("%d turns: wall %.1f ms/turn, model call %.2f ms/turn, host overhead %.2f ms/turn\n",
              calls, wall_ms / n, model_ms / n, (wall_ms - model_ms) / n);
  std::printf("%d turns: gantry CPU %.2f ms/turn (model client included, boot excluded)\n", calls,
              cpu_ms / n);
}

}  // namespace

int main(int argc, char** argv) try {
  int n = argc > 1 ? std::atoi(argv[1]) : 1000;
  gantry::testing::FakeOpenAiServer llm;
  Workspace ws("bench");
  auto env = gantry::e2e::stdioEnv(ws, llm.port());
  env["LOG_LEVEL"] = "info";
  env["CRON_ENABLED"] = "false";
  bootAndMemory(env);
  turns(env, n);
  return 0;
} catch (const std::exception& e) {
  std::fprintf(stderr, "bench_host: %s\n", e.what());
  return 1;
}
