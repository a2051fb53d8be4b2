#include "sandbox/server_sandbox.h"

#include <fcntl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <catch2/catch.hpp>
#include <filesystem>
#include <fstream>

#include "sandbox/landlock.h"
#include "tools/support/scratch_dir.h"

namespace fs = std::filesystem;
using gantry::sandbox::Access;
using gantry::sandbox::Grants;
using gantry::sandbox::Rule;
using gantry::sandbox::ServerPlan;
using gantry::sandbox::Settings;

namespace {

/// A scratch directory (tests/tools' ScratchDir) with folders and files made in it.
struct Scratch {
  gantry::testing::ScratchDir dir{"sandbox"};
  fs::path root{dir.path()};
  fs::path make(const std::string& relative, bool directory = true) const {
    fs::path path = root / relative;
    if (directory) {
      fs::create_directories(path);
    } else {
      fs::create_directories(path.parent_path());
      std::ofstream(path) << "content\n";
    }
    return path;
  }
};

bool granted(const std::vector<Rule>& rules, const fs::path& path) {
  return std::any_of(rules.begin(), rules.end(), [&](const Rule& r) { return r.path == path; });
}

bool anyBeneath(const std::vector<Rule>& rules, const std::string& base) {
  return std::any_of(rules.begin(), rules.end(), [&](const Rule& r) {
    return r.path == base || r.path.rfind(base + "/", 0) == 0;
  });
}

/// Runs body in a forked child inside a ruleset of rules; the child's exit code.
template <class Body>
int inChild(const std::vector<Rule>& rules, Body body) {
  auto abi = gantry::sandbox::landlockAbi();
  REQUIRE(abi.isOk());
  auto ruleset = gantry::sandbox::Ruleset::build(abi.value(), rules);
  REQUIRE(ruleset.isOk());
  const pid_t pid = ::fork();
  if (pid == 0) {
    if (gantry::sandbox::enterRuleset(ruleset->fd()) != 0) ::_exit(90);
    ::_exit(body());
  }
  int status = 0;
  ::waitpid(pid, &status, 0);
  return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

}  // namespace

TEST_CASE("a directory holding a protected path is granted around it, entry by entry",
          "[sandbox]") {
  Scratch s;
  s.make("tools/bin");
  s.make("data/mcp/other");
  s.make("notes");
  s.make("tools/prog", false);
  ServerPlan plan;
  plan.state_dir = (s.root / "data/mcp/me").string();
  plan.protected_paths = {(s.root / "data").string()};
  auto rules = gantry::sandbox::rulesFor((s.root / "tools/prog").string(), plan);
  CHECK(granted(rules, s.root / "tools"));
  CHECK(granted(rules, plan.state_dir));
  CHECK_FALSE(granted(rules, s.root / "data"));
  CHECK_FALSE(anyBeneath(rules, (s.root / "data/mcp/other").string()));

  // The program's own folder holding the data directory: its siblings only.
  s.make("prog2", false);
  auto around = gantry::sandbox::rulesFor((s.root / "prog2").string(), plan);
  CHECK(granted(around, s.root / "notes"));
  CHECK(granted(around, s.root / "tools"));
  CHECK_FALSE(granted(around, s.root));
  CHECK_FALSE(granted(around, s.root / "data"));
}

TEST_CASE("the system is granted read-only and /etc never includes /etc/gantry", "[sandbox]") {
  ServerPlan plan;
  plan.state_dir = "/tmp/unused-state";
  plan.protected_paths = gantry::sandbox::protectedPaths("/var/lib/gantry/x", "", "", "", "");
  auto rules = gantry::sandbox::rulesFor("/usr/bin/env", plan);
  CHECK_FALSE(granted(rules, "/etc"));
  CHECK_FALSE(anyBeneath(rules, "/etc/gantry"));
  if (fs::exists("/etc/passwd")) CHECK(granted(rules, fs::canonical("/etc/passwd")));
  for (const auto& rule : rules) {
    if (rule.path != plan.state_dir) CHECK(rule.access != Access::kReadWrite);
  }
}

TEST_CASE("manifest grants inside, around or relative to protected paths are refused",
          "[sandbox]") {
  Settings settings;
  settings.protected_paths = {"/var/lib/gantry/me", "/etc/gantry"};
  auto check = [&](const Grants& grants) {
    return gantry::sandbox::checkGrants("srv", grants, settings);
  };
  CHECK(check({{"/srv/notes"}, {"/home/me/inbox"}}).isOk());
  auto inside = check({{"/var/lib/gantry/me/vault"}, {}});
  REQUIRE_FALSE(inside.isOk());
  CHECK(inside.message() ==
        "mcp server \"srv\": sandbox.read \"/var/lib/gantry/me/vault\" would expose "
        "/var/lib/gantry/me, which no MCP server may reach");
  CHECK_FALSE(check({{}, {"/var/lib"}}).isOk());
  CHECK_FALSE(check({{"/"}, {}}).isOk());
  CHECK_FALSE(check({{"/etc"}, {}}).isOk());
  CHECK_FALSE(check({{"/var/lib/gantry/me/../me"}, {}}).isOk());
  auto relative = check({{"notes"}, {}});
  REQUIRE_FALSE(relative.isOk());
  CHECK(relative.message().find("is not an absolute path") != std::string::npos);
}

TEST_CASE("inside a ruleset a process reaches only what a rule grants", "[sandbox]") {
  if (!gantry::sandbox::landlockAbi().isOk()) {
    WARN("the kernel offers no Landlock: skipped");
    return;
  }
  Scratch s;
  auto readable = s.make("readable/file", false);
  auto writable = s.make("writable");
  auto hidden = s.make("hidden/file", false);
  std::vector<Rule> rules{{(s.root / "readable").string(), Access::kReadExecute},
                          {writable.string(), Access::kReadWrite}};
  CHECK(inChild(rules, [&] { return ::open(readable.c_str(), O_RDONLY) >= 0 ? 0 : 1; }) == 0);
  CHECK(inChild(rules, [&] {
          return ::open(hidden.c_str(), O_RDONLY) < 0 && errno == EACCES ? 0 : 1;
        }) == 0);
  CHECK(inChild(rules, [&] {
          return ::open(readable.c_str(), O_WRONLY) < 0 && errno == EACCES ? 0 : 1;
        }) == 0);
  auto created = (writable / "new").string();
  CHECK(inChild(rules, [&] {
          return ::open(created.c_str(), O_WRONLY | O_CREAT, 0600) >= 0 ? 0 : 1;
        }) == 0);
  CHECK(fs::exists(created));
  // A child cannot trace or (from ABI 6) signal its parent outside the sandbox.
  const pid_t parent = ::getpid();
  CHECK(inChild(rules, [&] {
          return ::open(("/proc/" + std::to_string(parent) + "/environ").c_str(), O_RDONLY) < 0 ? 0
                                                                                                : 1;
        }) == 0);
}

TEST_CASE("a state directory is made private, with its own tmp", "[sandbox]") {
  Scratch s;
  auto dir = (s.root / "mcp/srv").string();
  REQUIRE(gantry::sandbox::prepareStateDir(dir).isOk());
  CHECK(fs::is_directory(dir + "/tmp"));
  CHECK((fs::status(dir).permissions() & fs::perms::all) == fs::perms::owner_all);
}
