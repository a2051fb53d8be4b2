// bench_sandbox: what the MCP sandbox adds to a stdio server's start. Starts the fake MCP
// server N times inside its Landlock sandbox (the ruleset built at each start, as the
// transport does) and N times without, interleaved, each until the server printed its ready
// line, and prints the medians and their difference.

#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <filesystem>
#include <optional>
#include <string>
#include <vector>

#include "mcp/child_process.h"
#include "sandbox/landlock.h"
#include "sandbox/server_sandbox.h"

namespace {

using Clock = std::chrono::steady_clock;
using gantry::mcp::ChildProcess;

const std::string kServer = std::string(GANTRY_BUILD_DIR) + "/tests/fakes/mcp/fake_mcp_server";

/// Milliseconds from the spawn call until the server said it is ready.
double startOnce(const gantry::sandbox::ServerPlan* plan) {
  const auto start = Clock::now();
  std::optional<gantry::sandbox::Ruleset> ruleset;
  if (plan != nullptr) {
    auto built = gantry::sandbox::buildRuleset(*plan, kServer);
    if (!built.isOk()) throw std::runtime_error(built.status().message());
    ruleset = std::move(built.value());
  }
  auto child = ChildProcess::spawn(kServer, {}, gantry::mcp::minimalEnvironment(),
                                   {true, ruleset ? &*ruleset : nullptr});
  if (!child.isOk()) throw std::runtime_error(child.status().message());
  char byte = 0;
  while (::read(child.value()->stderrFd(), &byte, 1) == 1 && byte != '\n') {
  }
  const double ms = std::chrono::duration<double, std::milli>(Clock::now() - start).count();
  child.value()->stop(std::chrono::milliseconds(0));
  return ms;
}

double median(std::vector<double> values) {
  std::sort(values.begin(), values.end());
  return values[values.size() / 2];
}

}  // namespace

int main(int argc, char** argv) {
  const int starts = argc > 1 ? std::stoi(argv[1]) : 50;
  auto abi = gantry::sandbox::landlockAbi();
  if (!abi.isOk()) {
    std::fprintf(stderr, "bench_sandbox: %s\n", abi.status().message().c_str());
    return 1;
  }
  char pattern[] = "/tmp/gantry-bench-sandbox-XXXXXX";
  const std::string root = ::mkdtemp(pattern);
  gantry::sandbox::ServerPlan plan;
  plan.abi = abi.value();
  plan.state_dir = root + "/data/mcp/fake";
  plan.protected_paths = {root + "/data"};
  std::vector<double> outside, inside;
  for (int i = 0; i < starts; ++i) {
    outside.push_back(startOnce(nullptr));
    inside.push_back(startOnce(&plan));
  }
  std::filesystem::remove_all(root);
  const double floor = median(outside), sandboxed = median(inside);
  std::printf("starts=%d landlock_abi=%d outside p50=%.2f ms inside p50=%.2f ms added=%.2f ms\n",
              starts, abi.value(), floor, sandboxed, sandboxed - floor);
  return 0;
}
