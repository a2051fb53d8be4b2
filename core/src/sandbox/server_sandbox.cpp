#include "sandbox/server_sandbox.h"

#include <sys/stat.h>

#include <algorithm>
#include <filesystem>

namespace gantry::sandbox {
namespace {

namespace fs = std::filesystem;

// What every program needs to run: read and execute, never write.
constexpr const char* kSystemPaths[] = {"/usr", "/lib",  "/lib32", "/lib64", "/libx32",
                                        "/bin", "/sbin", "/etc",   "/opt"};
// What runtimes read about the machine (CPU count, memory, cgroup limits, kernel settings).
constexpr const char* kMachinePaths[] = {
    "/proc/cpuinfo", "/proc/meminfo",     "/proc/stat",
    "/proc/loadavg", "/proc/uptime",      "/proc/version",
    "/proc/sys",     "/proc/filesystems", "/sys/devices/system/cpu",
    "/sys/fs/cgroup"};
constexpr const char* kDevices[] = {"/dev/null", "/dev/zero", "/dev/full", "/dev/random",
                                    "/dev/urandom"};

fs::path normal(const std::string& path) {
  std::error_code ec;
  fs::path resolved = fs::weakly_canonical(path, ec);
  return ec ? fs::path(path).lexically_normal() : resolved;
}

/// path is base or lies beneath it.
bool within(const fs::path& path, const fs::path& base) {
  auto base_end = std::mismatch(base.begin(), base.end(), path.begin(), path.end()).first;
  return base_end == base.end() || (std::next(base_end) == base.end() && base_end->empty());
}

std::vector<fs::path> normalAll(const std::vector<std::string>& paths) {
  std::vector<fs::path> out;
  out.reserve(paths.size());
  for (const auto& path : paths) out.push_back(normal(path));
  return out;
}

/// Grants path, or, when it holds a protected path, each of its entries that is not one,
/// recursively: what is beside a protected path stays reachable, the path itself never.
void grantAround(const fs::path& path, Access access, const std::vector<fs::path>& protect,
                 std::vector<Rule>* out) {
  bool holds = false;
  for (const auto& p : protect) {
    if (within(path, p)) return;
    holds = holds || within(p, path);
  }
  if (!holds) return out->push_back({path.string(), access});
  std::error_code ec;
  for (const auto& entry : fs::directory_iterator(path, ec)) {
    fs::path target = fs::canonical(entry.path(), ec);  // a symlink's rule reaches its target
    if (!ec) grantAround(target, access, protect, out);
  }
}

void grantExisting(const std::string& path, Access access, const std::vector<fs::path>& protect,
                   std::vector<Rule>* out) {
  std::error_code ec;
  fs::path target = fs::canonical(path, ec);
  if (!ec) grantAround(target, access, protect, out);
}

/// `mcp server "NAME": sandbox.KEY "GRANT" ` followed by what is wrong with it.
Status grantRefused(const std::string& server, const char* key, const std::string& grant,
                    const std::string& why) {
  std::string message = "mcp server \"";
  message.append(server).append("\": sandbox.").append(key).append(" \"").append(grant);
  return Status::error(message.append("\" ").append(why));
}

}  // namespace

std::vector<std::string> protectedPaths(const std::string& data_dir, const std::string& persona_dir,
                                        const std::string& manifest,
                                        const std::string& credentials_dir,
                                        const std::string& key_file) {
  std::vector<std::string> paths{"/etc/gantry"};
  for (const std::string* path : {&data_dir, &persona_dir, &manifest, &credentials_dir}) {
    if (!path->empty()) paths.push_back(fs::absolute(*path).string());
  }
  if (!key_file.empty()) paths.push_back(fs::absolute(key_file).parent_path().string());
  return paths;
}

Status checkGrants(const std::string& server, const Grants& grants, const Settings& settings) {
  const auto protect = normalAll(settings.protected_paths);
  for (const auto* list : {&grants.read, &grants.write}) {
    const char* key = list == &grants.read ? "read" : "write";
    for (const auto& grant : *list) {
      if (!fs::path(grant).is_absolute()) {
        return grantRefused(server, key, grant, "is not an absolute path");
      }
      const fs::path granted = normal(grant);
      for (std::size_t i = 0; i < protect.size(); ++i) {
        if (within(granted, protect[i]) || within(protect[i], granted)) {
          return grantRefused(
              server, key, grant,
              "would expose " + settings.protected_paths[i] + ", which no MCP server may reach");
        }
      }
    }
  }
  return Status::ok();
}

std::string stateDir(const Settings& settings, const std::string& server) {
  return (fs::path(settings.state_root) / server).string();
}

Status prepareStateDir(const std::string& dir) {
  std::error_code ec;
  fs::create_directories(fs::path(dir) / "tmp", ec);
  if (ec) return Status::error("sandbox: cannot create " + dir + ": " + ec.message());
  for (const auto& path : {fs::path(dir), fs::path(dir) / "tmp"}) {
    ::chmod(path.c_str(), 0700);
  }
  return Status::ok();
}

std::vector<Rule> rulesFor(const std::string& program, const ServerPlan& plan) {
  const auto protect = normalAll(plan.protected_paths);
  const Grants& grants = plan.grants;
  std::vector<Rule> rules;
  for (const char* path : kSystemPaths) grantExisting(path, Access::kReadExecute, protect, &rules);
  for (const char* path : kMachinePaths) grantExisting(path, Access::kReadExecute, protect, &rules);
  for (const char* path : kDevices) rules.push_back({path, Access::kDevice});
  grantExisting(fs::path(program).parent_path().string(), Access::kReadExecute, protect, &rules);
  // checkGrants kept these clear of protected paths; a missing one fails the build, naming it.
  for (const auto& path : grants.read)
    rules.push_back({normal(path).string(), Access::kReadExecute});
  for (const auto& path : grants.write)
    rules.push_back({normal(path).string(), Access::kReadWrite});
  if (plan.terminal) {
    for (const char* path : {"/dev/tty", "/dev/pts"}) rules.push_back({path, Access::kDevice});
  }
  rules.push_back({plan.state_dir, Access::kReadWrite});
  return rules;
}

Result<Ruleset> buildRuleset(const ServerPlan& plan, const std::string& program) {
  if (Status s = prepareStateDir(plan.state_dir); !s.isOk()) return s;
  std::error_code ec;
  fs::path resolved = fs::canonical(program, ec);
  return Ruleset::build(plan.abi, rulesFor(ec ? program : resolved.string(), plan));
}

}  // namespace gantry::sandbox
