#pragma once
/// A child process with pipes, spawned with an explicit environment (an envp we build), so
/// the host's variables (LLM key, channel tokens) never leak into it, with no descriptor of
/// ours but its 0, 1 and 2, and optionally inside a Landlock sandbox entered between fork and
/// exec. Poco::Process::launch would merge its env map into the inherited environment and
/// could not run the sandbox step.

#include <sys/types.h>

#include <chrono>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

#include "gantry/status.h"
#include "sandbox/landlock.h"

namespace gantry::mcp {

using Environment = std::map<std::string, std::string>;

struct SpawnOptions {
  /// stdin/stdout/stderr are pipes; otherwise the child shares our terminal.
  bool piped = true;
  /// Entered by the child before exec (no_new_privs, then the ruleset); null: no sandbox.
  const sandbox::Ruleset* sandbox = nullptr;
};

/// The program command names, as exec would find it: command itself when it holds a '/',
/// else the first executable file of that name on our PATH. Fails naming the command.
Result<std::string> findProgram(const std::string& command);

/// The variables a child inherits from us: PATH, HOME, LANG, LC_*, TZ (those that are set).
Environment minimalEnvironment();

/// Owns a running child. Not copyable. Thread-safe for wait/terminate; the pipe fds are
/// read and written by the owner's threads.
class ChildProcess {
 public:
  /// Spawns command (found by findProgram) with args and exactly env, signals unblocked and
  /// at their defaults. Fails when the program cannot be started or the sandbox entered,
  /// saying which.
  static Result<std::unique_ptr<ChildProcess>> spawn(const std::string& command,
                                                     const std::vector<std::string>& args,
                                                     const Environment& env,
                                                     const SpawnOptions& options = {});
  ~ChildProcess();
  ChildProcess(const ChildProcess&) = delete;
  ChildProcess& operator=(const ChildProcess&) = delete;

  pid_t pid() const { return pid_; }
  int stdinFd() const { return stdin_fd_; }
  int stdoutFd() const { return stdout_fd_; }
  int stderrFd() const { return stderr_fd_; }
  /// Closes our end of the child's stdin (the stdio shutdown signal).
  void closeStdin();
  /// Waits up to timeout for the child to exit; its exit code (128+signal when killed).
  std::optional<int> waitFor(std::chrono::milliseconds timeout);
  /// Waits until the child exits.
  int wait();
  /// Sends a signal if the child has not been reaped yet.
  void signal(int number);
  /// Closes stdin, waits `grace`, then SIGTERM, then SIGKILL; reaps the child.
  void stop(std::chrono::milliseconds grace);

 private:
  ChildProcess() = default;
  std::optional<int> reap(bool block);

  pid_t pid_ = -1;
  int stdin_fd_ = -1;
  int stdout_fd_ = -1;
  int stderr_fd_ = -1;
  std::optional<int> exit_code_;
  std::mutex reap_mutex_;
};

}  // namespace gantry::mcp
