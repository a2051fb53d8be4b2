#include "e2e/support/gantry_process.h"

#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <functional>

namespace fs = std::filesystem;

namespace gantry::e2e {
namespace {

using Clock = std::chrono::steady_clock;

// Variables of the test's own environment that describe the machine, not gantry's
// configuration; everything else (a developer's exported LLM_MODEL…) stays out.
constexpr const char* kPassedThrough[] = {
    "PATH",   "HOME",         "LANG",          "LC_ALL",       "TZ",
    "TMPDIR", "ASAN_OPTIONS", "UBSAN_OPTIONS", "LSAN_OPTIONS", "TSAN_OPTIONS"};

// Poco::Process::launch adds its env to the parent's; `env -i` starts from nothing, and
// execs the program in place (same pid, so signals reach gantry itself).
std::vector<std::string> scrubbedArgs(const Env& env, const std::string& program,
                                      const std::vector<std::string>& args) {
  Env full;
  for (const char* name : kPassedThrough) {
    if (const char* value = std::getenv(name)) full[name] = value;
  }
  std::string wrapper;
  for (const auto& [name, value] : env) {
    if (name == kWrapper) {
      wrapper = value;
    } else {
      full[name] = value;
    }
  }
  std::vector<std::string> out{"-i"};
  for (const auto& [name, value] : full) out.push_back(std::string(name).append("=").append(value));
  if (!wrapper.empty()) out.push_back(wrapper);
  out.push_back(program);
  out.insert(out.end(), args.begin(), args.end());
  return out;
}

bool waitUntil(const std::function<bool()>& done, std::chrono::milliseconds timeout) {
  auto deadline = Clock::now() + timeout;
  while (Clock::now() < deadline) {
    if (done()) return true;
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
  return done();
}

}  // namespace

Workspace::Workspace(const std::string& name) {
  static int counter = 0;
  root_ = (fs::temp_directory_path() / ("gantry_e2e_" + name + "_" + std::to_string(::getpid()) +
                                        "_" + std::to_string(counter++)))
              .string();
  fs::remove_all(root_);
  fs::create_directories(root_ + "/data");
  write("persona/IDENTITY.md", "You are a careful test assistant.\n");
}

Workspace::~Workspace() {
  std::error_code ec;
  fs::remove_all(root_, ec);
}

void Workspace::write(const std::string& relative, const std::string& content) const {
  fs::path p = fs::path(root_) / relative;
  fs::create_directories(p.parent_path());
  std::ofstream(p, std::ios::binary) << content;
}

void Workspace::writePrivate(const std::string& relative, const std::string& content) const {
  write(relative, content);
  fs::permissions(fs::path(root_) / relative, fs::perms::owner_read | fs::perms::owner_write);
}

Env stdioEnv(const Workspace& workspace, int llm_port) {
  return {{"CHANNEL", "stdio"},
          {"LLM_BASE_URL", "http://127.0.0.1:" + std::to_string(llm_port) + "/v1"},
          {"LLM_MODEL", "fake-model"},
          {"PERSONA_DIR", workspace.persona()},
          {"DATA_DIR", workspace.data()},
          {"MCP_MANIFEST", workspace.path() + "/mcp.toml"},
          {"MEMORY_CONSOLIDATE_MINUTES", "0"},
          {"LOG_LEVEL", "debug"}};
}

Env telegramEnv(const Workspace& workspace, int llm_port, const std::string& bot_token,
                const std::string& api_base, std::int64_t owner) {
  Env env = stdioEnv(workspace, llm_port);
  env["CHANNEL"] = "telegram";
  env["LLM_API_KEY"] = "test-key";
  env["TELEGRAM_BOT_TOKEN"] = bot_token;
  env["TELEGRAM_ALLOWED_USERS"] = std::to_string(owner);
  env["TELEGRAM_API_BASE"] = api_base;
  env["GANTRY_MODULE_DIR"] = std::string(GANTRY_BUILD_DIR) + "/modules";
  env["CRON_ENABLED"] = "false";
  env["COALESCE_SETTLE_MS"] = "0";
  return env;
}

Capture::Capture(Poco::Pipe& pipe)
    : pipe_(pipe), thread_([this] {
        char buf[4096];
        while (true) {
          int n = pipe_.readBytes(buf, sizeof buf);
          if (n <= 0) break;
          std::lock_guard lock(mutex_);
          text_.append(buf, static_cast<std::size_t>(n));
          last_added_ = Clock::now();
          arrivals_.emplace_back(text_.size(), last_added_);
        }
      }) {}

Capture::~Capture() { join(); }

void Capture::join() {
  if (thread_.joinable()) thread_.join();
}

std::string Capture::text() const {
  std::lock_guard lock(mutex_);
  return text_;
}

Clock::time_point Capture::lastAdded() const {
  std::lock_guard lock(mutex_);
  return last_added_;
}

Clock::time_point Capture::arrivedBy(std::size_t length) const {
  std::lock_guard lock(mutex_);
  auto it = std::lower_bound(arrivals_.begin(), arrivals_.end(), length,
                             [](const auto& arrival, std::size_t n) { return arrival.first < n; });
  return it == arrivals_.end() ? Clock::time_point{} : it->second;
}

GantryProcess::GantryProcess(const Env& env, const std::vector<std::string>& args) {
  handle_ = std::make_unique<Poco::ProcessHandle>(Poco::Process::launch(
      "/usr/bin/env", scrubbedArgs(env, std::string(GANTRY_BUILD_DIR) + "/gantry", args), &in_,
      &out_pipe_, &err_pipe_));
  out_ = std::make_unique<Capture>(out_pipe_);
  err_ = std::make_unique<Capture>(err_pipe_);
}

GantryProcess::~GantryProcess() {
  if (!exited_) {
    ::kill(pid(), SIGKILL);
    wait(std::chrono::seconds(10));
  }
  closeInput();
  out_->join();
  err_->join();
}

void GantryProcess::write(const std::string& text) {
  in_.writeBytes(text.data(), static_cast<int>(text.size()));
}

void GantryProcess::closeInput() {
  if (input_open_) in_.close(Poco::Pipe::CLOSE_WRITE);
  input_open_ = false;
}

bool GantryProcess::waitForOutput(const std::string& needle, std::chrono::milliseconds timeout,
                                  int times) {
  return waitUntil([&] { return count(out(), needle) >= times; }, timeout);
}

bool GantryProcess::waitForLog(const std::string& needle, std::chrono::milliseconds timeout) {
  return waitUntil([&] { return err().find(needle) != std::string::npos; }, timeout);
}

void GantryProcess::signal(int sig) { ::kill(pid(), sig); }

int GantryProcess::wait(std::chrono::milliseconds timeout) {
  if (exited_) return code_;
  int status = 0;
  bool done = waitUntil([&] { return ::waitpid(pid(), &status, WNOHANG) == pid(); }, timeout);
  if (!done) {
    ::kill(pid(), SIGKILL);
    ::waitpid(pid(), &status, 0);
    exited_ = true;
    return code_ = -1;
  }
  exited_ = true;
  code_ = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
  out_->join();
  err_->join();
  return code_;
}

int GantryProcess::stop(std::chrono::milliseconds timeout) {
  if (!exited_) signal(SIGTERM);
  return wait(timeout);
}

RunResult runGantry(const Env& env, const std::string& stdin_text,
                    const std::vector<std::string>& args, std::chrono::milliseconds timeout) {
  GantryProcess process(env, args);
  process.write(stdin_text);
  process.closeInput();
  RunResult result;
  result.code = process.wait(timeout);
  result.out = process.out();
  result.err = process.err();
  return result;
}

int count(const std::string& text, const std::string& needle) {
  int n = 0;
  for (auto pos = text.find(needle); pos != std::string::npos;
       pos = text.find(needle, pos + needle.size())) {
    ++n;
  }
  return n;
}

long GantryProcess::statusKb(const std::string& field) const {
  std::ifstream in("/proc/" + std::to_string(pid()) + "/status");
  std::string prefix = field;
  prefix += ':';
  for (std::string line; std::getline(in, line);) {
    if (line.rfind(prefix, 0) == 0) return std::stol(line.substr(prefix.size()));
  }
  return 0;
}

}  // namespace gantry::e2e
