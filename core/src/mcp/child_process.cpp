#include "mcp/child_process.h"

#include <fcntl.h>
#include <signal.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <thread>

#include "config/process_env.h"

extern char** environ;  // NOLINT: POSIX

namespace gantry::mcp {
namespace {

constexpr unsigned kCloseRangeCloexec = 1U << 2;  // linux/close_range.h

bool inheritable(std::string_view name) {
  return name == "PATH" || name == "HOME" || name == "LANG" || name == "TZ" ||
         name.substr(0, 3) == "LC_";
}

/// Both ends close-on-exec; the child's ends are dup2'd onto 0/1/2.
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

/// Everything the child needs, prepared before fork: after it, the child may only make
/// system calls (another thread may hold the allocator's lock).
struct ChildPlan {
  const char* program = nullptr;
  char* const* argv = nullptr;
  char* const* envp = nullptr;
  bool piped = true;
  int stdio[3] = {-1, -1, -1};
  int ruleset = -1;
  int report = -1;  ///< write end: a failure before exec is reported here
  int max_fd = 1024;
};

enum class Step : int { kDescriptors = 1, kSandbox = 2, kExec = 3 };

struct Failure {
  int step = 0;
  int error = 0;
};

[[noreturn]] void fail(const ChildPlan& plan, Step step, int error) {
  const Failure failure{static_cast<int>(step), error};
  [[maybe_unused]] ssize_t n = ::write(plan.report, &failure, sizeof failure);
  ::_exit(127);
}

// gantry blocks SIGHUP/SIGINT/SIGTERM (a signal thread waits for them) and ignores SIGPIPE;
// a child would inherit both and then not stop on SIGTERM. It starts with an empty mask and
// default dispositions instead.
void resetSignals() {
  struct sigaction defaults {};
  defaults.sa_handler = SIG_DFL;
  sigemptyset(&defaults.sa_mask);
  for (int number :
       {SIGHUP, SIGINT, SIGQUIT, SIGTERM, SIGPIPE, SIGCHLD, SIGALRM, SIGUSR1, SIGUSR2}) {
    ::sigaction(number, &defaults, nullptr);
  }
  sigset_t none;
  sigemptyset(&none);
  ::sigprocmask(SIG_SETMASK, &none, nullptr);
}

/// Every descriptor above 2 closes at exec: the child holds none of ours (the database, the
/// vault, sockets, other children's pipes), and the report pipe stays open until then.
void closeOnExecAbove2(const ChildPlan& plan) {
  if (::syscall(SYS_close_range, 3U, ~0U, kCloseRangeCloexec) == 0) return;
  for (int fd = 3; fd < plan.max_fd; ++fd) ::fcntl(fd, F_SETFD, FD_CLOEXEC);
}

[[noreturn]] void runChild(const ChildPlan& plan) {
  resetSignals();
  if (plan.piped) {
    for (int target = 0; target < 3; ++target) {
      if (::dup2(plan.stdio[target], target) < 0) fail(plan, Step::kDescriptors, errno);
    }
  }
  if (plan.ruleset >= 0) {
    if (int error = sandbox::enterRuleset(plan.ruleset); error != 0) {
      fail(plan, Step::kSandbox, error);
    }
  }
  closeOnExecAbove2(plan);
  ::execve(plan.program, plan.argv, plan.envp);
  fail(plan, Step::kExec, errno);
}

int openFileLimit() {
  rlimit limit{};
  if (::getrlimit(RLIMIT_NOFILE, &limit) != 0 || limit.rlim_cur == RLIM_INFINITY) return 65536;
  return static_cast<int>(std::min<rlim_t>(limit.rlim_cur, 1 << 20));
}

/// Waits for the child's report: none (the pipe closed at exec) means it started.
std::optional<Failure> readReport(int fd) {
  Failure failure;
  ssize_t n;
  do {
    n = ::read(fd, &failure, sizeof failure);
  } while (n < 0 && errno == EINTR);
  if (n != static_cast<ssize_t>(sizeof failure)) return std::nullopt;
  return failure;
}

Status describe(const Failure& failure, const std::string& command) {
  const std::string reason = std::strerror(failure.error);
  switch (static_cast<Step>(failure.step)) {
    case Step::kSandbox:
      return Status::error("cannot start \"" + command + "\" in its sandbox: " + reason);
    case Step::kDescriptors:
      return Status::retry("cannot start \"" + command + "\": dup2: " + reason);
    case Step::kExec: break;
  }
  return Status::error("cannot start \"" + command + "\": " + reason +
                       " (check the command is installed and on PATH)");
}

bool executableFile(const std::string& path) {
  struct stat info {};
  return ::stat(path.c_str(), &info) == 0 && S_ISREG(info.st_mode) &&
         ::access(path.c_str(), X_OK) == 0;
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

Result<std::string> findProgram(const std::string& command) {
  if (command.empty()) return Status::error("cannot start an empty command");
  if (command.find('/') != std::string::npos) return command;
  const std::string* path = config::capturedVariable("PATH");
  std::string_view dirs = path != nullptr ? std::string_view(*path) : "/usr/bin:/bin";
  while (true) {
    const auto colon = dirs.find(':');
    std::string dir(dirs.substr(0, colon));
    std::string candidate = (dir.empty() ? std::string(".") : dir) + "/" + command;
    if (executableFile(candidate)) return candidate;
    if (colon == std::string_view::npos) break;
    dirs.remove_prefix(colon + 1);
  }
  return Status::error("cannot start \"" + command +
                       "\": not found on PATH (check the command is installed and on PATH)");
}

Result<std::unique_ptr<ChildProcess>> ChildProcess::spawn(const std::string& command,
                                                          const std::vector<std::string>& args,
                                                          const Environment& env,
                                                          const SpawnOptions& options) {
  auto program = findProgram(command);
  if (!program.isOk()) return program.status();
  int in[2] = {-1, -1}, out[2] = {-1, -1}, err[2] = {-1, -1}, report[2] = {-1, -1};
  auto closeAll = [&] {
    for (int* fd : {&in[0], &in[1], &out[0], &out[1], &err[0], &err[1], &report[0], &report[1]}) {
      closeFd(fd);
    }
  };
  if ((options.piped && (!makePipe(in) || !makePipe(out) || !makePipe(err))) || !makePipe(report)) {
    closeAll();
    return Status::retry("cannot create pipes for \"" + command + "\": " + std::strerror(errno));
  }
  std::vector<std::string> argv_strings{command};
  argv_strings.insert(argv_strings.end(), args.begin(), args.end());
  auto env_strings = flatten(env);
  auto argv = pointers(argv_strings);
  auto envp = pointers(env_strings);
  ChildPlan plan;
  plan.program = program->c_str();
  plan.argv = argv.data();
  plan.envp = envp.data();
  plan.piped = options.piped;
  plan.stdio[0] = in[0];
  plan.stdio[1] = out[1];
  plan.stdio[2] = err[1];
  plan.ruleset = options.sandbox != nullptr ? options.sandbox->fd() : -1;
  plan.report = report[1];
  plan.max_fd = openFileLimit();
  const pid_t pid = ::fork();
  if (pid == 0) runChild(plan);
  const int fork_error = errno;
  for (int* fd : {&in[0], &out[1], &err[1], &report[1]}) closeFd(fd);
  if (pid < 0) {
    closeAll();
    return Status::retry("cannot start \"" + command + "\": fork: " + std::strerror(fork_error));
  }
  auto failure = readReport(report[0]);
  closeFd(&report[0]);
  std::unique_ptr<ChildProcess> child(new ChildProcess);
  child->pid_ = pid;
  child->stdin_fd_ = in[1];
  child->stdout_fd_ = out[0];
  child->stderr_fd_ = err[0];
  if (failure) {
    child->wait();
    return describe(*failure, command);
  }
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
