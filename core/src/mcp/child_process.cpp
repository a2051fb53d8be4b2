#include "mcp/child_process.h"

#include <fcntl.h>
#include <signal.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <thread>

extern char** environ;  // NOLINT: POSIX

namespace gantry::mcp {
namespace {

bool inheritable(std::string_view name) {
  return name == "PATH" || name == "HOME" || name == "LANG" || name == "TZ" ||
         name.substr(0, 3) == "LC_";
}

/// Both ends close-on-exec; the child's ends are dup2'd onto 0/1/2 by the spawn actions.
bool makePipe(int fds[2]) { return pipe2(fds, O_CLOEXEC) == 0; }

// Closing twice only reads: a descriptor closed under a lock stays safe to check without it.
void closeFd(int* fd) {
  if (*fd < 0) return;
  ::close(*fd);
  *fd = -1;
}

std::vector<std::string> flatten(const Environment& env) {
  std::vector<std::string> entries;
  entries.reserve(env.size());
  for (const auto& [name, value] : env) entries.emplace_back(name).append("=").append(value);
  return entries;
}

std::vector<char*> pointers(std::vector<std::string>& strings) {
  std::vector<char*> out;
  out.reserve(strings.size() + 1);
  for (auto& text : strings) out.push_back(text.data());
  out.push_back(nullptr);
  return out;
}

// gantry blocks SIGHUP/SIGINT/SIGTERM (a signal thread waits for them) and ignores SIGPIPE;
// a child would inherit both and then not stop on SIGTERM. It starts with an empty mask and
// default dispositions instead.
void resetSignals(posix_spawnattr_t* attr) {
  sigset_t none;
  sigemptyset(&none);
  posix_spawnattr_setsigmask(attr, &none);
  sigset_t defaults;
  sigemptyset(&defaults);
  for (int number :
       {SIGHUP, SIGINT, SIGQUIT, SIGTERM, SIGPIPE, SIGCHLD, SIGALRM, SIGUSR1, SIGUSR2}) {
    sigaddset(&defaults, number);
  }
  posix_spawnattr_setsigdefault(attr, &defaults);
  posix_spawnattr_setflags(attr, POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF);
}

}  // namespace

Environment minimalEnvironment() {
  Environment env;
  for (char** entry = environ; entry != nullptr && *entry != nullptr; ++entry) {
    std::string_view text(*entry);
    auto equals = text.find('=');
    if (equals == std::string_view::npos || !inheritable(text.substr(0, equals))) continue;
    env[std::string(text.substr(0, equals))] = std::string(text.substr(equals + 1));
  }
  return env;
}

Result<std::unique_ptr<ChildProcess>> ChildProcess::spawn(const std::string& command,
                                                          const std::vector<std::string>& args,
                                                          const Environment& env, bool piped) {
  int in[2] = {-1, -1}, out[2] = {-1, -1}, err[2] = {-1, -1};
  if (piped && (!makePipe(in) || !makePipe(out) || !makePipe(err))) {
    for (int* fd : {&in[0], &in[1], &out[0], &out[1], &err[0], &err[1]}) closeFd(fd);
    return Status::retry("cannot create pipes for \"" + command + "\": " + std::strerror(errno));
  }
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  if (piped) {
    posix_spawn_file_actions_adddup2(&actions, in[0], 0);
    posix_spawn_file_actions_adddup2(&actions, out[1], 1);
    posix_spawn_file_actions_adddup2(&actions, err[1], 2);
  }
  posix_spawn_file_actions_addclosefrom_np(&actions, 3);
  std::vector<std::string> argv_strings{command};
  argv_strings.insert(argv_strings.end(), args.begin(), args.end());
  auto env_strings = flatten(env);
  auto argv = pointers(argv_strings);
  auto envp = pointers(env_strings);
  posix_spawnattr_t attr;
  posix_spawnattr_init(&attr);
  resetSignals(&attr);
  pid_t pid = -1;
  const int rc = posix_spawnp(&pid, command.c_str(), &actions, &attr, argv.data(), envp.data());
  posix_spawnattr_destroy(&attr);
  posix_spawn_file_actions_destroy(&actions);
  for (int* fd : {&in[0], &out[1], &err[1]}) closeFd(fd);
  if (rc != 0) {
    for (int* fd : {&in[1], &out[0], &err[0]}) closeFd(fd);
    return Status::error("cannot start \"" + command + "\": " + std::strerror(rc) +
                         " (check the command is installed and on PATH)");
  }
  std::unique_ptr<ChildProcess> child(new ChildProcess);
  child->pid_ = pid;
  child->stdin_fd_ = in[1];
  child->stdout_fd_ = out[0];
  child->stderr_fd_ = err[0];
  return child;
}

ChildProcess::~ChildProcess() {
  if (!exit_code_) stop(std::chrono::milliseconds(0));
  closeFd(&stdin_fd_);
  closeFd(&stdout_fd_);
  closeFd(&stderr_fd_);
}

void ChildProcess::closeStdin() { closeFd(&stdin_fd_); }

std::optional<int> ChildProcess::reap(bool block) {
  std::lock_guard lock(reap_mutex_);
  if (exit_code_) return exit_code_;
  int status = 0;
  pid_t rc;
  do {
    rc = ::waitpid(pid_, &status, block ? 0 : WNOHANG);
  } while (rc < 0 && errno == EINTR);
  if (rc == pid_) {
    exit_code_ = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
  } else if (rc < 0) {
    exit_code_ = -1;  // already reaped elsewhere; nothing left to wait for
  }
  return exit_code_;
}

std::optional<int> ChildProcess::waitFor(std::chrono::milliseconds timeout) {
  const auto deadline = std::chrono::steady_clock::now() + timeout;
  while (true) {
    if (auto code = reap(false)) return code;
    if (std::chrono::steady_clock::now() >= deadline) return std::nullopt;
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
}

int ChildProcess::wait() { return *reap(true); }

void ChildProcess::signal(int number) {
  std::lock_guard lock(reap_mutex_);
  if (!exit_code_) ::kill(pid_, number);
}

void ChildProcess::stop(std::chrono::milliseconds grace) {
  closeStdin();
  if (waitFor(grace)) return;
  signal(SIGTERM);
  if (waitFor(std::chrono::milliseconds(2000))) return;
  signal(SIGKILL);
  wait();
}

}  // namespace gantry::mcp
