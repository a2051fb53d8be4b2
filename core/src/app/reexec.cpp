#include "app/reexec.h"

#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <fstream>
#include <iterator>
#include <string>
#include <vector>

#include "config/process_env.h"
#include "log/log.h"

namespace gantry::app {

int reexecSelf() {
  std::ifstream in("/proc/self/cmdline", std::ios::binary);
  std::string cmdline((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  std::vector<std::string> args;
  for (std::size_t start = 0; start < cmdline.size();) {
    std::size_t end = cmdline.find('\0', start);
    if (end == std::string::npos) end = cmdline.size();
    args.emplace_back(cmdline.substr(start, end - start));
    start = end + 1;
  }
  std::vector<char*> argv;
  argv.reserve(args.size() + 1);
  for (auto& arg : args) argv.push_back(arg.data());
  argv.push_back(nullptr);
  // The new process gets the environment this one started with, secrets wiped since included.
  auto env_strings = config::capturedEnvironment();
  std::vector<char*> envp;
  envp.reserve(env_strings.size() + 1);
  for (auto& entry : env_strings) envp.push_back(entry.data());
  envp.push_back(nullptr);
  log::info("restarting", {{"reason", "vault changed"}});
  ::execve("/proc/self/exe", argv.data(), envp.data());
  log::error("restart_failed", {{"error", std::strerror(errno)}});
  return 1;
}

}  // namespace gantry::app
