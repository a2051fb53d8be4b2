#include "mcp/child_process.h"

#include <signal.h>
#include <unistd.h>

#include <catch2/catch.hpp>
#include <string>

using gantry::mcp::ChildProcess;

namespace {

/// Blocks the signals gantry's signal thread waits for and ignores SIGPIPE, as the daemon
/// does, for the lifetime of the object.
class DaemonSignals {
 public:
  DaemonSignals() {
    sigset_t set;
    sigemptyset(&set);
    for (int number : {SIGHUP, SIGINT, SIGTERM}) sigaddset(&set, number);
    pthread_sigmask(SIG_BLOCK, &set, &old_mask_);
    old_pipe_ = ::signal(SIGPIPE, SIG_IGN);
  }
  ~DaemonSignals() {
    pthread_sigmask(SIG_SETMASK, &old_mask_, nullptr);
    ::signal(SIGPIPE, old_pipe_);
  }

 private:
  sigset_t old_mask_;
  sighandler_t old_pipe_;
};

std::string readAll(int fd) {
  std::string out;
  char buffer[4096];
  ssize_t n;
  while ((n = ::read(fd, buffer, sizeof buffer)) > 0)
    out.append(buffer, static_cast<std::size_t>(n));
  return out;
}

}  // namespace

TEST_CASE("a child starts with no blocked and no ignored signals", "[mcp]") {
  DaemonSignals daemon;
  auto child = ChildProcess::spawn("grep", {"-E", "^Sig(Blk|Ign)", "/proc/self/status"},
                                   gantry::mcp::minimalEnvironment());
  REQUIRE(child.isOk());
  std::string status = readAll(child.value()->stdoutFd());
  INFO(status);
  CHECK(child.value()->wait() == 0);
  CHECK(status.find("SigBlk:\t0000000000000000") != std::string::npos);
  // Signals 1-31 only: glibc's posix_spawn leaves its own internal signals (32, 33) ignored.
  auto ignored = status.find("SigIgn:\t");
  REQUIRE(ignored != std::string::npos);
  CHECK((std::stoull(status.substr(ignored + 8, 16), nullptr, 16) & 0x7fffffffULL) == 0);
}

TEST_CASE("a child stops on SIGTERM without waiting for SIGKILL", "[mcp]") {
  DaemonSignals daemon;
  auto child = ChildProcess::spawn("sleep", {"30"}, gantry::mcp::minimalEnvironment());
  REQUIRE(child.isOk());
  child.value()->signal(SIGTERM);
  auto code = child.value()->waitFor(std::chrono::milliseconds(1500));
  REQUIRE(code.has_value());
  CHECK(*code == 128 + SIGTERM);
}
