// The fault matrix, disk: the data directory on a full filesystem. The test mounts a small
// tmpfs over the workspace's data directory in a private mount namespace of its own (the
// gantry it starts inherits it; nothing is visible outside the test process), so it needs
// root; otherwise it says so and skips.
#include <sched.h>
#include <sys/mount.h>
#include <unistd.h>

#include <catch2/catch.hpp>
#include <cerrno>
#include <cstring>
#include <filesystem>
#include <fstream>

#include "openai/fake_openai_server.h"
#include "reliability/fault_support.h"

using gantry::e2e::count;
using gantry::e2e::Env;
using gantry::e2e::GantryProcess;
using gantry::e2e::Workspace;
using gantry::testing::FakeOpenAiServer;
using namespace std::chrono_literals;

namespace {

/// Mounts a tmpfs of size_kb over dir in a private mount namespace; "" or why not.
std::string mountSmallTmpfs(const std::string& dir, int size_kb) {
  if (::geteuid() != 0) return "not running as root";
  if (::unshare(CLONE_NEWNS) != 0) return std::string("unshare(CLONE_NEWNS): ") + strerror(errno);
  if (::mount(nullptr, "/", nullptr, MS_REC | MS_PRIVATE, nullptr) != 0) {
    return std::string("making / private: ") + strerror(errno);
  }
  const std::string options = "size=" + std::to_string(size_kb) + "k";
  if (::mount("tmpfs", dir.c_str(), "tmpfs", 0, options.c_str()) != 0) {
    return std::string("mounting a tmpfs: ") + strerror(errno);
  }
  return "";
}

/// Unmounts dir at the end of the scope, so the workspace can be removed.
struct Unmount {
  std::string dir;
  ~Unmount() { ::umount2(dir.c_str(), MNT_DETACH); }
};

/// Fills the filesystem of dir with one file until it is full.
void fill(const std::string& path) {
  std::ofstream out(path, std::ios::binary);
  const std::string block(std::size_t{64} * 1024, 'f');
  while (out.write(block.data(), static_cast<std::streamsize>(block.size()))) out.flush();
}

}  // namespace

TEST_CASE("a full data directory fails the turn clearly, writes nothing half, and recovers",
          "[faults][disk]") {
  Workspace ws("fault-disk");
  const std::string why_not = mountSmallTmpfs(ws.data(), 4096);
  if (!why_not.empty()) {
    WARN("skipped: the full-disk case needs a tmpfs of its own (" << why_not << ")");
    return;
  }
  Unmount unmount{ws.data()};
  FakeOpenAiServer llm;
  Env env = gantry::e2e::stdioEnv(ws, llm.port());
  env["MEMORY_ENABLED"] = "false";
  GantryProcess g(env);
  g.write("before the disk fills\n");
  REQUIRE(g.waitForOutput("echo: before the disk fills", 30s));
  const std::string filler = ws.data() + "/filler";
  fill(filler);
  g.write("while the disk is full\n");
  REQUIRE(g.waitForOutput("\n", 30s, 2));
  std::filesystem::remove(filler);
  g.write("after space returns\n");
  const bool recovered = g.waitForOutput("echo: after space returns", 30s);
  INFO(g.out() << g.err().substr(g.err().size() > 8000 ? g.err().size() - 8000 : 0));
  REQUIRE(recovered);
  g.closeInput();
  CHECK(g.wait(30s) == 1);  // the turn on the full disk failed
  INFO(g.out() << g.err());
  CHECK(g.out().find("echo: while the disk is full") == std::string::npos);
  CHECK(count(g.out(), "free space on the disk holding DATA_DIR") == 1);
  std::string why;
  const bool sound = gantry::faults::recordSound(ws, &why);
  INFO(why);
  CHECK(sound);
}

TEST_CASE("a data directory gantry cannot write fails boot at once, naming DATA_DIR and the user",
          "[faults][disk]") {
  Workspace ws("fault-readonly");
  // Read-only even for root: a tmpfs mounted read-only over the data directory.
  std::string why_not = mountSmallTmpfs(ws.data(), 1024);
  if (why_not.empty() &&
      ::mount(nullptr, ws.data().c_str(), nullptr, MS_REMOUNT | MS_RDONLY, nullptr) != 0) {
    why_not = std::string("remounting read-only: ") + strerror(errno);
  }
  if (!why_not.empty()) {
    WARN("skipped: the read-only case needs a mount of its own (" << why_not << ")");
    return;
  }
  Unmount unmount{ws.data()};
  FakeOpenAiServer llm;
  const auto started = std::chrono::steady_clock::now();
  auto run = gantry::e2e::runGantry(gantry::e2e::stdioEnv(ws, llm.port()), "", {"run"}, 120s);
  const auto took = std::chrono::steady_clock::now() - started;
  INFO(run.err);
  CHECK(run.code == 1);
  CHECK(took < 5s);  // Poco retried the open for 60 s, with SIGTERM blocked
  CHECK(count(run.err, "\n") == 1);
  CHECK(run.err.rfind("gantry: DATA_DIR: " + ws.data() + " is not writable by user root (uid 0)",
                      0) == 0);
}
