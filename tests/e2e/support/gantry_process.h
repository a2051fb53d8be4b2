#pragma once
/// End-to-end support: a scratch workspace (persona, data dir) and the real gantry binary run
/// as a child process with its stdin, stdout and stderr captured.

#include <Poco/Pipe.h>
#include <Poco/Process.h>

#include <chrono>
#include <cstdint>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <utility>
#include <vector>

namespace gantry::e2e {

using Env = std::map<std::string, std::string>;

/// Not passed to gantry: a program gantry is run through (`WRAPPER gantry ARGS…`).
inline constexpr const char* kWrapper = "TEST_WRAPPER";

/// A fresh directory with persona/IDENTITY.md and data/; removed on destruction.
class Workspace {
 public:
  explicit Workspace(const std::string& name);
  ~Workspace();
  std::string path() const { return root_; }
  std::string persona() const { return root_ + "/persona"; }
  std::string data() const { return root_ + "/data"; }
  /// Writes a file under the workspace (creating directories).
  void write(const std::string& relative, const std::string& content) const;
  /// write, then mode 0600 (a key file gantry accepts).
  void writePrivate(const std::string& relative, const std::string& content) const;

 private:
  std::string root_;
};

/// The environment of a stdio instance against the fake model at llm_port.
Env stdioEnv(const Workspace& workspace, int llm_port);
/// stdioEnv on CHANNEL=telegram against a (fake) Bot API at api_base with owner allowlisted;
/// cron and coalescing off, the build tree's modules.
Env telegramEnv(const Workspace& workspace, int llm_port, const std::string& bot_token,
                const std::string& api_base, std::int64_t owner);

/// Text captured from a pipe by a reader thread.
class Capture {
 public:
  explicit Capture(Poco::Pipe& pipe);
  ~Capture();
  std::string text() const;
  /// When text was last added to (the clock's epoch before any).
  std::chrono::steady_clock::time_point lastAdded() const;
  /// When the text's first `length` bytes had all arrived (the clock's epoch if they have
  /// not).
  std::chrono::steady_clock::time_point arrivedBy(std::size_t length) const;
  void join();

 private:
  Poco::Pipe& pipe_;
  mutable std::mutex mutex_;
  std::string text_;
  std::chrono::steady_clock::time_point last_added_;
  /// The text's length after each read, and when that read returned.
  std::vector<std::pair<std::size_t, std::chrono::steady_clock::time_point>> arrivals_;
  std::thread thread_;
};

/// A running gantry; killed (SIGKILL) on destruction if still running. Its environment is
/// env plus PATH, HOME, locale, TZ, TMPDIR and sanitizer options of the test process;
/// nothing else of the caller's environment leaks in.
class GantryProcess {
 public:
  GantryProcess(const Env& env, const std::vector<std::string>& args = {"run"});
  ~GantryProcess();

  void write(const std::string& text);
  /// Closes stdin (end of input).
  void closeInput();
  /// Waits until stdout contains needle `times` times; false on timeout or exit.
  bool waitForOutput(const std::string& needle, std::chrono::milliseconds timeout, int times = 1);
  bool waitForLog(const std::string& needle, std::chrono::milliseconds timeout);
  void signal(int sig);
  /// Waits for exit; returns the exit code, or -1 after the timeout (then kills).
  int wait(std::chrono::milliseconds timeout = std::chrono::seconds(60));
  /// Asks for a graceful shutdown (SIGTERM) and waits for exit, as wait() does.
  int stop(std::chrono::milliseconds timeout = std::chrono::seconds(60));
  std::string out() const { return out_->text(); }
  /// When stdout last had output.
  std::chrono::steady_clock::time_point lastOutputAt() const { return out_->lastAdded(); }
  /// When stdout's first `length` bytes had all arrived.
  std::chrono::steady_clock::time_point outputArrivedBy(std::size_t length) const {
    return out_->arrivedBy(length);
  }
  std::string err() const { return err_->text(); }
  int pid() const { return static_cast<int>(handle_->id()); }
  /// A "kB" field of /proc/PID/status (VmRSS, VmHWM); 0 once the process is gone.
  long statusKb(const std::string& field) const;

 private:
  Poco::Pipe in_, out_pipe_, err_pipe_;
  std::unique_ptr<Poco::ProcessHandle> handle_;
  std::unique_ptr<Capture> out_, err_;
  bool input_open_ = true;
  bool exited_ = false;
  int code_ = -1;
};

struct RunResult {
  int code = -1;
  std::string out;
  std::string err;
};

/// Runs gantry to completion with stdin_text as its whole input.
RunResult runGantry(const Env& env, const std::string& stdin_text,
                    const std::vector<std::string>& args = {"run"},
                    std::chrono::milliseconds timeout = std::chrono::seconds(60));

/// Occurrences of needle in text.
int count(const std::string& text, const std::string& needle);

}  // namespace gantry::e2e
