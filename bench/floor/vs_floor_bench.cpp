// bench_vs_floor: the real gantry binary (stdio channel, no MCP servers, the in-process fake
// model answering at once) beside gantry_floor (bench/floor/floor_main.cpp), measured in the
// same run so the machine's noise hits both. Prints one `key value` line per figure, which
// bench/run-all.sh turns into the table:
//   start_ms.<who>       exec → the `ready` line, median of N starts (min beside it)
//   start_cpu_ms.<who>   CPU time its threads had used when `ready` came (median): the
//                        part of the start that a busy machine does not inflate
//   private_kib.<who>    Private_Dirty of the second of two instances run side by side,
//                        after TURNS turns each (what one more instance costs)
//   anon_kib.<who>       its Anonymous memory; rss_kib.<who> its VmRSS
//   rss_growth_kib.<who> VmRSS after 3×TURNS turns minus after TURNS
//   packaged_private_kib.<who>  private_kib again, both run with the malloc setting
//                        (GLIBC_TUNABLES) of the packaged unit, packaging/debian/gantry@.service
//   wakeups.<who>        context switches of all its threads over an idle window, per minute
// Usage: bench_vs_floor [starts=20] [turns=1000] [idle_seconds=10]
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>
#include <string>
#include <thread>
#include <vector>

#include "e2e/support/gantry_process.h"
#include "openai/fake_openai_server.h"

namespace fs = std::filesystem;
using Clock = std::chrono::steady_clock;
using namespace std::chrono_literals;

extern char** environ;  // NOLINT: POSIX

namespace {

/// One child with its stdin, stdout and stderr on pipes; stderr is watched for `ready`.
class Child {
 public:
  Child(const std::string& program, const gantry::e2e::Env& env) {
    int in[2], out[2], err[2];
    if (::pipe(in) != 0 || ::pipe(out) != 0 || ::pipe(err) != 0) std::abort();
    std::vector<std::string> strings;
    strings.reserve(env.size());
    for (const auto& [name, value] : env)
      strings.push_back(std::string(name).append("=").append(value));
    std::vector<char*> envp;
    envp.reserve(strings.size() + 1);
    for (auto& s : strings) envp.push_back(s.data());
    envp.push_back(nullptr);
    started_ = Clock::now();
    pid_ = ::fork();
    if (pid_ == 0) {
      ::dup2(in[0], 0);
      ::dup2(out[1], 1);
      ::dup2(err[1], 2);
      for (int fd : {in[0], in[1], out[0], out[1], err[0], err[1]}) ::close(fd);
      char* argv[] = {const_cast<char*>(program.c_str()), nullptr};
      ::execve(program.c_str(), argv, envp.data());
      ::_exit(127);
    }
    ::close(in[0]);
    ::close(out[1]);
    ::close(err[1]);
    in_ = in[1], out_ = out[0], err_ = err[0];
  }
  ~Child() {
    closeInput();
    drainUntil([] { return false; }, 30s);
    int status = 0;
    ::waitpid(pid_, &status, 0);
    ::close(out_);
    ::close(err_);
  }
  Child(const Child&) = delete;
  Child& operator=(const Child&) = delete;

  int pid() const { return pid_; }
  /// Milliseconds from fork to the `ready` line; negative when it never came.
  double waitReady() {
    bool ok = drainUntil(
        [this] { return err_text_.find("\"msg\":\"ready\"") != std::string::npos; }, 30s);
    if (!ok) std::fprintf(stderr, "not ready:\n%s\n", err_text_.c_str());
    return ok ? std::chrono::duration<double, std::milli>(ready_at_ - started_).count() : -1;
  }
  void write(const std::string& text) {
    for (std::size_t done = 0; done < text.size();) {
      // Answers are read meanwhile, so a child blocked on a full stdout never stalls us.
      drainUntil([] { return true; }, 0ms);
      ssize_t n = ::write(in_, text.data() + done, std::min<std::size_t>(text.size() - done, 4096));
      if (n <= 0) std::abort();
      done += static_cast<std::size_t>(n);
    }
  }
  /// Waits for `lines` lines on stdout in all.
  bool waitLines(std::size_t lines) {
    return drainUntil([&] { return lines_ >= lines; }, 600s);
  }
  void closeInput() {
    if (in_ >= 0) ::close(in_);
    in_ = -1;
  }

 private:
  template <class Done>
  bool drainUntil(Done done, std::chrono::milliseconds timeout) {
    auto deadline = Clock::now() + timeout;
    char buf[65536];
    while (true) {
      if (done()) return true;
      auto left = std::chrono::duration_cast<std::chrono::milliseconds>(deadline - Clock::now());
      if (left.count() < 0 && timeout.count() > 0) return false;
      pollfd fds[2] = {{out_, POLLIN, 0}, {err_, POLLIN, 0}};
      int n = ::poll(fds, 2, static_cast<int>(std::max<long>(left.count(), 0)));
      if (n <= 0) return done();
      bool open = false;
      for (auto& fd : fds) {
        if (fd.revents == 0) {
          open = true;
          continue;
        }
        ssize_t got = ::read(fd.fd, buf, sizeof buf);
        if (got <= 0) continue;
        open = true;
        if (fd.fd == out_) {
          lines_ += static_cast<std::size_t>(std::count(buf, buf + got, '\n'));
        } else {
          bool was_ready = err_text_.find("\"msg\":\"ready\"") != std::string::npos;
          err_text_.append(buf, static_cast<std::size_t>(got));
          if (!was_ready && err_text_.find("\"msg\":\"ready\"") != std::string::npos) {
            ready_at_ = Clock::now();
          }
        }
      }
      if (!open) return done();
    }
  }

  int pid_ = -1, in_ = -1, out_ = -1, err_ = -1;
  Clock::time_point started_, ready_at_;
  std::string err_text_;
  std::size_t lines_ = 0;
};

long procField(const std::string& path, const std::string& field) {
  std::ifstream in(path);
  std::string line;
  long total = 0;
  while (std::getline(in, line)) {
    if (line.rfind(field, 0) == 0) total += std::stol(line.substr(field.size()));
  }
  return total;
}

/// Nanoseconds every live thread of pid has run on a CPU (/proc/PID/task/*/schedstat).
double cpuMs(int pid) {
  double ns = 0;
  for (const auto& task : fs::directory_iterator("/proc/" + std::to_string(pid) + "/task")) {
    std::ifstream in(task.path() / "schedstat");
    double run = 0;
    if (in >> run) ns += run;
  }
  return ns / 1e6;
}

/// Voluntary and involuntary context switches of every thread of pid.
long contextSwitches(int pid) {
  long total = 0;
  for (const auto& task : fs::directory_iterator("/proc/" + std::to_string(pid) + "/task")) {
    total += procField(task.path() / "status", "voluntary_ctxt_switches:");
    total += procField(task.path() / "status", "nonvoluntary_ctxt_switches:");
  }
  return total;
}

std::string lines(int from, int count) {
  std::string text;
  for (int i = from; i < from + count; ++i) text += "message number " + std::to_string(i) + "\n";
  return text;
}

struct Subject {
  std::string who, program;
  gantry::e2e::Env env;
};

void print(const std::string& key, const Subject& s, double value) {
  std::printf("%s.%s %.2f\n", key.c_str(), s.who.c_str(), value);
  std::fflush(stdout);
}

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v.empty() ? 0 : v[v.size() / 2];
}

void start(const std::vector<Subject*>& subjects, int starts) {
  std::map<std::string, std::vector<double>> wall, cpu;
  for (int i = 0; i <= starts; ++i) {
    for (auto* s : subjects) {  // alternating, so both see the same noise
      Child child(s->program, s->env);
      double t = child.waitReady();
      double on_cpu = cpuMs(child.pid());
      if (i == 0 || t < 0) continue;  // the first start creates the database
      wall[s->who].push_back(t);
      cpu[s->who].push_back(on_cpu);
    }
  }
  for (auto* s : subjects) {
    if (wall[s->who].empty()) continue;
    print("start_ms", *s, median(wall[s->who]));
    print("start_min_ms", *s, *std::min_element(wall[s->who].begin(), wall[s->who].end()));
    print("start_cpu_ms", *s, median(cpu[s->who]));
  }
}

/// as_packaged: both run as the packaged unit runs them (packaged()); only private memory is
/// reported then.
void memory(const Subject& s, const Subject& twin, int turns, bool as_packaged = false) {
  Child first(s.program, s.env), second(twin.program, twin.env);
  if (first.waitReady() < 0 || second.waitReady() < 0) return;
  for (Child* c : {&first, &second}) c->write(lines(0, turns));
  for (Child* c : {&first, &second}) c->waitLines(static_cast<std::size_t>(turns));
  std::this_thread::sleep_for(500ms);
  std::string proc = "/proc/" + std::to_string(second.pid());
  const double private_kib =
      static_cast<double>(procField(proc + "/smaps_rollup", "Private_Dirty:"));
  if (as_packaged) {
    print("packaged_private_kib", s, private_kib);
    return;
  }
  print("private_kib", s, private_kib);
  print("anon_kib", s, static_cast<double>(procField(proc + "/smaps_rollup", "Anonymous:")));
  long rss = procField(proc + "/status", "VmRSS:");
  print("rss_kib", s, static_cast<double>(rss));
  second.write(lines(turns, 2 * turns));
  second.waitLines(std::size_t{3} * static_cast<std::size_t>(turns));
  std::this_thread::sleep_for(500ms);
  print("rss_growth_kib", s, static_cast<double>(procField(proc + "/status", "VmRSS:") - rss));
}

void idle(const Subject& s, int seconds) {
  Child child(s.program, s.env);
  if (child.waitReady() < 0) return;
  std::this_thread::sleep_for(1s);  // boot's own threads settle
  long before = contextSwitches(child.pid());
  std::this_thread::sleep_for(std::chrono::seconds(seconds));
  long after = contextSwitches(child.pid());
  print("wakeups_per_min", s, static_cast<double>(after - before) * 60.0 / seconds);
}

/// The GLIBC_TUNABLES the packaged unit sets ("" when it sets none).
std::string packagedTunables() {
  std::ifstream unit(GANTRY_SOURCE_DIR "/packaging/debian/gantry@.service");
  const std::string key = "Environment=GLIBC_TUNABLES=";
  std::string line;
  while (std::getline(unit, line)) {
    if (line.rfind(key, 0) == 0) return line.substr(key.size());
  }
  return "";
}

/// s as the packaged unit runs it.
Subject packaged(Subject s, const std::string& tunables) {
  s.env["GLIBC_TUNABLES"] = tunables;
  return s;
}

}  // namespace

int main(int argc, char** argv) {
  int starts = argc > 1 ? std::atoi(argv[1]) : 20;
  int turns = argc > 2 ? std::atoi(argv[2]) : 1000;
  int idle_seconds = argc > 3 ? std::atoi(argv[3]) : 10;
  ::signal(SIGPIPE, SIG_IGN);
  gantry::testing::FakeOpenAiServer llm;
  // Workspaces remove their directory when destroyed, so they are never moved.
  const gantry::e2e::Workspace spaces[] = {
      gantry::e2e::Workspace("vs_floor_a"), gantry::e2e::Workspace("vs_floor_b"),
      gantry::e2e::Workspace("floor_a"), gantry::e2e::Workspace("floor_b")};
  auto gantryEnv = [&](const gantry::e2e::Workspace& ws) {
    auto env = gantry::e2e::stdioEnv(ws, llm.port());
    env["LOG_LEVEL"] = "info";
    env["CRON_ENABLED"] = "false";
    if (const char* path = std::getenv("PATH")) env["PATH"] = path;
    return env;
  };
  Subject g{"gantry", GANTRY_BINARY, gantryEnv(spaces[0])};
  Subject g2{"gantry", GANTRY_BINARY, gantryEnv(spaces[1])};
  Subject f{"floor", FLOOR_BINARY, {{"DATA_DIR", spaces[2].data()}}};
  Subject f2{"floor", FLOOR_BINARY, {{"DATA_DIR", spaces[3].data()}}};
  start({&g, &f}, starts);
  idle(g, idle_seconds);
  idle(f, idle_seconds);
  memory(g, g2, turns);
  memory(f, f2, turns);
  if (const std::string tunables = packagedTunables(); !tunables.empty()) {
    memory(packaged(g, tunables), packaged(g2, tunables), turns, true);
    memory(packaged(f, tunables), packaged(f2, tunables), turns, true);
  }
  return 0;
}
