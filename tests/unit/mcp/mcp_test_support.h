#pragma once
// Shared helpers for the MCP host tests: locating the fake server and the npm peers, fast
// supervisor options, and a log tap that records lines for assertions.

#include <unistd.h>

#include <catch2/catch.hpp>
#include <chrono>
#include <filesystem>
#include <mutex>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include "log/log.h"
#include "mcp/host.h"
#include "peers/peers.h"

namespace gantry::mcp::testing {

inline std::string fakeServerPath() {
  return std::string(GANTRY_BUILD_DIR) + "/tests/fakes/mcp/fake_mcp_server";
}

/// Short intervals so restarts and health checks happen within a test.
inline McpOptions fastOptions() {
  McpOptions options;
  options.boot_wait = std::chrono::milliseconds(20000);
  options.init_timeout = std::chrono::milliseconds(20000);
  options.health_interval = std::chrono::milliseconds(300);
  options.health_timeout = std::chrono::milliseconds(1000);
  options.backoff_initial = std::chrono::milliseconds(100);
  options.backoff_max = std::chrono::milliseconds(400);
  return options;
}

/// Polls pred every 20 ms for up to 30 s (a guard against hangs, not a timing assertion).
template <class Pred>
bool eventually(Pred pred) {
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(30);
  while (std::chrono::steady_clock::now() < deadline) {
    if (pred()) return true;
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
  return pred();
}

/// Records every log line while alive.
class LogCapture {
 public:
  LogCapture() { log::setTap(&LogCapture::tap, this); }
  ~LogCapture() { log::setTap(nullptr, nullptr); }
  bool contains(const std::string& needle) const {
    std::lock_guard lock(mutex_);
    for (const auto& line : lines_) {
      if (line.find(needle) != std::string::npos) return true;
    }
    return false;
  }
  std::size_t count(const std::string& needle) const {
    std::lock_guard lock(mutex_);
    std::size_t n = 0;
    for (const auto& line : lines_) n += line.find(needle) != std::string::npos;
    return n;
  }

 private:
  static void tap(void* self, LogLevel, std::string_view line) {
    auto* capture = static_cast<LogCapture*>(self);
    std::lock_guard lock(capture->mutex_);
    capture->lines_.emplace_back(line);
  }
  mutable std::mutex mutex_;
  std::vector<std::string> lines_;
};

inline ServerSpec fakeSpec(std::vector<std::string> args = {}) {
  ServerSpec spec;
  spec.name = "fake";
  spec.command = fakeServerPath();
  spec.args = std::move(args);
  return spec;
}

/// A scratch data directory for sandboxed servers: state beneath data/mcp, data protected.
class SandboxRoot {
 public:
  SandboxRoot() {
    char pattern[] = "/tmp/gantry-mcp-sandbox-XXXXXX";
    root_ = ::mkdtemp(pattern);
    std::filesystem::create_directories(root_ + "/data");
  }
  ~SandboxRoot() { std::filesystem::remove_all(root_); }
  SandboxRoot(const SandboxRoot&) = delete;
  SandboxRoot& operator=(const SandboxRoot&) = delete;
  std::string path() const { return root_; }
  /// fastOptions with the sandbox on, as the daemon sets it up.
  McpOptions options() const {
    McpOptions options = fastOptions();
    options.sandbox.enabled = true;
    options.sandbox.state_root = root_ + "/data/mcp";
    options.sandbox.protected_paths = {root_ + "/data"};
    return options;
  }

 private:
  std::string root_;
};

inline std::unique_ptr<McpHost> startHost(const std::vector<ServerSpec>& specs,
                                          McpOptions options = fastOptions()) {
  Manifest manifest;
  manifest.servers = specs;
  auto host = McpHost::start(manifest, std::move(options));
  REQUIRE(host.isOk());
  return std::move(host.value());
}

inline tools::CallContext context(std::chrono::milliseconds timeout = std::chrono::seconds(20),
                                  const CancelToken* cancel = nullptr) {
  tools::CallContext ctx;
  ctx.timeout = timeout;
  ctx.cancel = cancel;
  return ctx;
}

}  // namespace gantry::mcp::testing
