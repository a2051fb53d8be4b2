// Model calls on a kept-alive connection against Python's http.server (fake_model.py), which
// writes a reply's header and body separately with Nagle on: without quick ACKs on our
// side every call after the first waited ~40 ms for a delayed ACK. Runs N sequential
// stdio turns (default 20) and prints the first call's dur_ms beside the later ones'.
#include <Poco/Pipe.h>
#include <Poco/PipeStream.h>
#include <Poco/Process.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <string>
#include <vector>

#include "common/log_figures.h"
#include "e2e/support/gantry_process.h"

using gantry::bench::modelCallDurations;
using gantry::e2e::GantryProcess;
using gantry::e2e::Workspace;
using namespace std::chrono_literals;

namespace {

void report(std::vector<double> ms) {
  if (ms.size() < 2) {
    std::printf("too few model calls (%zu)\n", ms.size());
    return;
  }
  std::printf("first call: %.0f ms\n", ms[0]);
  std::vector<double> reused(ms.begin() + 1, ms.end());
  std::sort(reused.begin(), reused.end());
  std::printf("reused connection, %zu calls: p50 %.0f ms, max %.0f ms\n", reused.size(),
              reused[reused.size() / 2], reused.back());
}

}  // namespace

int main(int argc, char** argv) {
  int n = argc > 1 ? std::atoi(argv[1]) : 20;
  Poco::Pipe out;
  Poco::ProcessHandle model = Poco::Process::launch(
      "python3", {std::string(GANTRY_SOURCE_DIR) + "/bench/nagle/fake_model.py"}, nullptr, &out,
      nullptr);
  Poco::PipeInputStream model_out(out);
  std::string word;
  int port = 0;
  model_out >> word >> port;
  if (word != "PORT" || port == 0) return std::fprintf(stderr, "fake_model.py did not start\n"), 1;
  Workspace ws("bench-nagle");
  auto env = gantry::e2e::stdioEnv(ws, port);
  env["LOG_LEVEL"] = "info";
  env["CRON_ENABLED"] = "false";
  GantryProcess g(env);
  std::string input;
  for (int i = 0; i < n; ++i) input += "turn " + std::to_string(i) + "\n";
  g.write(input);
  g.closeInput();
  g.wait(300s);
  Poco::Process::kill(model);
  report(modelCallDurations(g.err()));
  return 0;
}
