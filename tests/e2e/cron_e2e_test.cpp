// End to end: scheduled turns through the real gantry binary with CHANNEL=stdio (stdin kept
// open, so the process keeps running) and the fake OpenAI-compatible server in this process.

#include <Poco/Pipe.h>
#include <Poco/PipeStream.h>
#include <Poco/Process.h>
#include <Poco/TemporaryFile.h>

#include <catch2/catch.hpp>
#include <chrono>
#include <filesystem>
#include <fstream>
#include <mutex>
#include <thread>

#include "fake_openai_server.h"
#include "store/cron_repo.h"

using gantry::testing::FakeOpenAiServer;

namespace {

constexpr int64_t kHourMs = 3600 * 1000;

class Workspace {
 public:
  Workspace() : root_(Poco::TemporaryFile::tempName()) {
    std::filesystem::create_directories(root_ + "/persona");
    std::filesystem::create_directories(root_ + "/data");
    std::ofstream(root_ + "/persona/IDENTITY.md") << "You are a test agent.\n";
  }
  ~Workspace() { std::filesystem::remove_all(root_); }
  const std::string& root() const { return root_; }
  std::string db() const { return root_ + "/data/gantry.db"; }

 private:
  std::string root_;
};

Poco::Process::Env environment(const Workspace& workspace, const FakeOpenAiServer& llm) {
  return {
      {"CHANNEL", "stdio"},
      {"PROVIDER", "openai"},
      {"STDIO_FORMAT", "text"},
      {"LLM_BASE_URL", llm.baseUrl()},
      {"LLM_API_KEY", "test-key"},
      {"LLM_MODEL", "fake-model"},
      {"PERSONA_DIR", workspace.root() + "/persona"},
      {"DATA_DIR", workspace.root() + "/data"},
      {"MCP_MANIFEST", workspace.root() + "/none.toml"},
      {"GANTRY_MODULE_DIR", std::string(GANTRY_BUILD_DIR) + "/modules"},
      {"MEMORY_CONSOLIDATE_MINUTES", "0"},
      {"CRON_TZ", "UTC"},
      {"CRON_TICK_SECONDS", "1"},
      {"COALESCE_SETTLE_MS", "0"},
      {"LOG_LEVEL", "debug"},
  };
}

/// Collects everything read from a pipe on its own thread.
class Collector {
 public:
  explicit Collector(const Poco::Pipe& pipe)
      : thread_([this, pipe] {
          Poco::PipeInputStream in(pipe);
          for (std::string line; std::getline(in, line);) {
            std::lock_guard lock(mutex_);
            text_ += line + "\n";
          }
        }) {}
  ~Collector() { join(); }
  void join() {
    if (thread_.joinable()) thread_.join();
  }
  std::string text() const {
    std::lock_guard lock(mutex_);
    return text_;
  }

 private:
  mutable std::mutex mutex_;
  std::string text_;
  std::thread thread_;
};

std::size_t count(const std::string& haystack, const std::string& needle) {
  std::size_t n = 0;
  for (auto at = haystack.find(needle); at != std::string::npos;
       at = haystack.find(needle, at + 1)) {
    ++n;
  }
  return n;
}

// The gantry daemon as a child process on a stdin pipe that stays open until finish().
class Gantry {
 public:
  Gantry(const Workspace& workspace, const FakeOpenAiServer& llm)
      : handle_(Poco::Process::launch(std::string(GANTRY_BUILD_DIR) + "/gantry", {"run"}, &in_,
                                      &out_, &err_, environment(workspace, llm))),
        stdout_(out_),
        stderr_(err_) {}
  ~Gantry() { finish(); }

  void say(const std::string& line) {
    std::string text = line + "\n";
    in_.writeBytes(text.data(), static_cast<int>(text.size()));
  }

  /// Waits (generously, only to avoid a hang) until stdout holds needle `times` times.
  bool waitOutput(const std::string& needle, std::size_t times = 1, int seconds = 180) {
    auto until = std::chrono::steady_clock::now() + std::chrono::seconds(seconds);
    while (std::chrono::steady_clock::now() < until) {
      if (count(stdout_.text(), needle) >= times) return true;
      if (!Poco::Process::isRunning(handle_)) return count(stdout_.text(), needle) >= times;
      std::this_thread::sleep_for(std::chrono::milliseconds(50));
    }
    return false;
  }

  /// Fails the test, showing stdout and the log, unless stdout comes to hold needle.
  void requireOutput(const std::string& needle) {
    if (!waitOutput(needle))
      FAIL("no \"" << needle << "\" on stdout:\n" << out() << "\nlog:\n" << log());
  }

  /// Closes stdin (end of input) and waits for the exit code.
  int finish() {
    if (finished_) return exit_code_;
    finished_ = true;
    in_.close(Poco::Pipe::CLOSE_WRITE);
    exit_code_ = handle_.wait();
    stdout_.join();
    stderr_.join();
    return exit_code_;
  }

  std::string out() const { return stdout_.text(); }
  std::string log() const { return stderr_.text(); }

 private:
  Poco::Pipe in_, out_, err_;
  Poco::ProcessHandle handle_;
  Collector stdout_, stderr_;
  bool finished_ = false;
  int exit_code_ = -1;
};

/// Runs `gantry cron <args>` and returns its stdout; the exit code goes to *code.
std::string cronCli(const Workspace& workspace, const FakeOpenAiServer& llm,
                    const std::vector<std::string>& args, int* code) {
  Poco::Pipe out;
  std::vector<std::string> all = {"cron"};
  all.insert(all.end(), args.begin(), args.end());
  Poco::ProcessHandle handle =
      Poco::Process::launch(std::string(GANTRY_BUILD_DIR) + "/gantry", all, nullptr, &out, nullptr,
                            environment(workspace, llm));
  Collector collected(out);
  *code = handle.wait();
  collected.join();
  return collected.text();
}

std::string cronAddCall(const std::string& schedule, const std::string& prompt) {
  return R"({"tool_calls":[{"id":"call_1","name":"cron_add","arguments":"{\"schedule\":\")" +
         schedule + R"(\",\"prompt\":\")" + prompt + R"(\"}"}]})";
}

// The next whole UTC minute at least 5 seconds away, as a one-shot schedule.
std::string soonOneShot() {
  auto now = std::chrono::system_clock::now();
  auto minute = std::chrono::floor<std::chrono::minutes>(now) + std::chrono::minutes(1);
  if (minute - now < std::chrono::seconds(5)) minute += std::chrono::minutes(1);
  std::time_t t = std::chrono::system_clock::to_time_t(minute);
  std::tm tm{};
  gmtime_r(&t, &tm);
  char text[32];
  std::strftime(text, sizeof text, "%Y-%m-%dT%H:%M", &tm);
  return text;
}

}  // namespace

TEST_CASE("a job added by a tool call fires and its reply appears on stdout", "[e2e][cron]") {
  Workspace workspace;
  FakeOpenAiServer llm;
  llm.addReply(cronAddCall(soonOneShot(), "cron says hello"));
  llm.addReply(R"({"content":"scheduled it"})");
  Gantry gantry(workspace, llm);
  gantry.say("remind me in a minute");
  gantry.requireOutput("scheduled it");
  // The scheduled turn's reply is the fake's echo of the turn's message (the job's prompt).
  gantry.requireOutput("cron says hello");
  CHECK(gantry.finish() == 0);
  CHECK(count(gantry.out(), "cron says hello") == 1);
  int code = -1;
  CHECK(cronCli(workspace, llm, {"list"}, &code).empty());  // one-shot removed after running
  CHECK(code == 0);
}

TEST_CASE("a job survives a restart and a run missed while down fires once", "[e2e][cron]") {
  Workspace workspace;
  FakeOpenAiServer llm;
  llm.addReply(cronAddCall("@hourly", "hourly check"));
  llm.addReply(R"({"content":"scheduled hourly"})");
  {
    Gantry gantry(workspace, llm);
    gantry.say("check every hour");
    gantry.requireOutput("scheduled hourly");
    CHECK(gantry.finish() == 0);
  }
  int code = -1;
  CHECK(cronCli(workspace, llm, {"list"}, &code).rfind("1\t@hourly\t", 0) == 0);
  CHECK(code == 0);
  {
    // Down for three hours: three slots were missed.
    auto store = gantry::store::Store::open(workspace.db());
    REQUIRE(store.isOk());
    gantry::store::CronRepo repo(*store.value());
    REQUIRE(repo.setNextRun(1, gantry::store::nowMs() - 3 * kHourMs).isOk());
  }
  Gantry restarted(workspace, llm);
  restarted.requireOutput("hourly check");
  // Let several ticks pass: a missed slot must not run again.
  std::this_thread::sleep_for(std::chrono::seconds(3));
  CHECK(restarted.finish() == 0);
  CHECK(count(restarted.out(), "hourly check") == 1);

  auto store = gantry::store::Store::open(workspace.db());
  REQUIRE(store.isOk());
  gantry::store::CronRepo repo(*store.value());
  auto runs = repo.runs(1);
  REQUIRE(runs.isOk());
  REQUIRE(runs->size() == 1);
  CHECK(runs->at(0).outcome == "ok");
  auto job = repo.get(1).value();
  REQUIRE(job.has_value());
  CHECK(job->next_run_at.value_or(0) > gantry::store::nowMs());
}
