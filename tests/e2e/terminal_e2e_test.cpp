// The stdio REPL as its owner meets it: on a terminal (a pseudo-terminal made with forkpty,
// so gantry sees stdin and stdout as TTYs), the local API's owner chat, and start-up that a
// SIGTERM ends.
#include <Poco/Net/HTTPClientSession.h>
#include <Poco/Net/HTTPRequest.h>
#include <Poco/Net/HTTPResponse.h>
#include <Poco/Net/ServerSocket.h>
#include <poll.h>
#include <pty.h>
#include <sys/wait.h>
#include <unistd.h>

#include <catch2/catch.hpp>
#include <chrono>
#include <csignal>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <thread>

#include "e2e/support/gantry_process.h"
#include "openai/fake_openai_server.h"

using gantry::e2e::Env;
using gantry::e2e::GantryProcess;
using gantry::e2e::Workspace;
using gantry::testing::FakeOpenAiServer;
using namespace std::chrono_literals;

namespace {

/// gantry run on a pseudo-terminal: stdin, stdout and stderr are all the terminal.
class PtyGantry {
 public:
  explicit PtyGantry(const Env& env) {
    std::vector<std::string> args{"/usr/bin/env", "-i"};
    for (const char* name : {"PATH", "HOME", "LANG", "TZ", "TMPDIR"}) {
      if (const char* value = std::getenv(name)) args.push_back(std::string(name) + "=" + value);
    }
    for (const auto& [name, value] : env)
      args.push_back(std::string(name).append("=").append(value));
    args.push_back(std::string(GANTRY_BUILD_DIR) + "/gantry");
    args.emplace_back("run");
    pid_ = ::forkpty(&master_, nullptr, nullptr, nullptr);
    if (pid_ == 0) {
      std::vector<char*> argv;
      argv.reserve(args.size() + 1);
      for (auto& a : args) argv.push_back(a.data());
      argv.push_back(nullptr);
      ::execv(argv[0], argv.data());
      ::_exit(127);
    }
  }
  ~PtyGantry() {
    if (pid_ > 0) {
      ::kill(pid_, SIGKILL);
      ::waitpid(pid_, nullptr, 0);
    }
    if (master_ >= 0) ::close(master_);
  }
  PtyGantry(const PtyGantry&) = delete;
  PtyGantry& operator=(const PtyGantry&) = delete;

  bool started() const { return pid_ > 0 && master_ >= 0; }
  void write(const std::string& text) {
    [[maybe_unused]] auto n = ::write(master_, text.data(), text.size());
  }
  /// Reads what the terminal shows until needle appears; false after the timeout.
  bool waitFor(const std::string& needle, std::chrono::milliseconds timeout) {
    const auto deadline = std::chrono::steady_clock::now() + timeout;
    while (screen_.find(needle) == std::string::npos) {
      if (std::chrono::steady_clock::now() > deadline) return false;
      pollfd fd{master_, POLLIN, 0};
      if (::poll(&fd, 1, 100) <= 0) continue;
      char buf[4096];
      const ssize_t n = ::read(master_, buf, sizeof buf);
      if (n <= 0) return false;
      screen_.append(buf, static_cast<std::size_t>(n));
    }
    return true;
  }
  const std::string& screen() const { return screen_; }

 private:
  int master_ = -1;
  pid_t pid_ = -1;
  std::string screen_;
};

std::string readFile(const std::string& path) {
  std::ifstream in(path);
  std::stringstream text;
  text << in.rdbuf();
  return text.str();
}

int freePort() {
  Poco::Net::ServerSocket socket(0);
  return socket.address().port();
}

int post(int port, const std::string& path, const std::string& body, const std::string& token) {
  Poco::Net::HTTPClientSession session("127.0.0.1", static_cast<Poco::UInt16>(port));
  Poco::Net::HTTPRequest request(Poco::Net::HTTPRequest::HTTP_POST, path,
                                 Poco::Net::HTTPMessage::HTTP_1_1);
  request.set("Authorization", "Bearer " + token);
  request.setContentType("application/json");
  request.setContentLength(static_cast<std::streamsize>(body.size()));
  session.sendRequest(request) << body;
  Poco::Net::HTTPResponse response;
  session.receiveResponse(response);
  return static_cast<int>(response.getStatus());
}

}  // namespace

TEST_CASE("on a terminal the REPL keeps the log in a file and shows warnings as one line",
          "[e2e][terminal]") {
  Workspace ws("terminal-log");
  FakeOpenAiServer llm;
  Env env = gantry::e2e::stdioEnv(ws, llm.port());
  env["LOG_LEVEL"] = "info";
  // A warning at boot: a manifest server that is not there.
  ws.write("mcp.toml", "[[server]]\nname = \"gone\"\ncommand = \"/nonexistent/server\"\n");
  env["MCP_SANDBOX"] = "off";
  PtyGantry g(env);
  REQUIRE(g.started());
  const std::string log_path = ws.data() + "/gantry.log";
  REQUIRE(g.waitFor("> ", 30s));
  g.write("hello there\r");
  const bool replied = g.waitFor("echo: hello there", 30s);
  INFO(g.screen());
  REQUIRE(replied);
  CHECK(g.screen().find("gantry: logs go to " + log_path) != std::string::npos);
  CHECK(g.screen().find("{\"ts\"") == std::string::npos);  // no JSON on the terminal
  CHECK(g.screen().find("warning: ") != std::string::npos);
  const std::string log = readFile(log_path);
  CHECK(log.find("\"msg\":\"ready\"") != std::string::npos);
}

TEST_CASE("on a terminal the spin-up notice is a status line the reply replaces",
          "[e2e][terminal]") {
  Workspace ws("terminal-spinup");
  FakeOpenAiServer llm;
  llm.addReply(R"({"content":"late answer","delay_ms":1500})");
  Env env = gantry::e2e::stdioEnv(ws, llm.port());
  env["STREAM_REPLIES"] = "true";
  env["SPINUP_NOTICE_MS"] = "300";
  PtyGantry g(env);
  REQUIRE(g.started());
  REQUIRE(g.waitFor("> ", 30s));
  g.write("take your time\r");
  const bool replied = g.waitFor("late answer", 30s);
  INFO(g.screen());
  REQUIRE(replied);
  // Shown on the line, then erased (carriage return, erase to end of line) by the reply.
  CHECK(g.screen().find("⏳ working on it…\r\033[Klate answer") != std::string::npos);
}

TEST_CASE("on stdio /notify reaches the terminal without API_OWNER_CHAT", "[e2e][terminal]") {
  Workspace ws("stdio-notify");
  FakeOpenAiServer llm;
  Env env = gantry::e2e::stdioEnv(ws, llm.port());
  const int port = freePort();
  env["API_LISTEN"] = "127.0.0.1:" + std::to_string(port);
  env["API_TOKEN"] = "stdio-notify-token";
  GantryProcess g(env);
  REQUIRE(g.waitForLog("\"msg\":\"ready\"", 30s));
  CHECK(post(port, "/notify", R"({"text":"the kettle boiled"})", "stdio-notify-token") == 200);
  CHECK(g.waitForOutput("the kettle boiled", 10s));
  g.closeInput();
  CHECK(g.wait() == 0);
}

TEST_CASE("SIGTERM ends start-up while it waits for an MCP server", "[e2e][terminal]") {
  Workspace ws("boot-sigterm");
  FakeOpenAiServer llm;
  Env env = gantry::e2e::stdioEnv(ws, llm.port());
  // A server that never answers initialize: boot waits its 10 s for it.
  ws.write("mcp.toml", "[[server]]\nname = \"mute\"\ncommand = \"sleep\"\nargs = [\"60\"]\n");
  env["MCP_SANDBOX"] = "off";
  GantryProcess g(env);
  std::this_thread::sleep_for(1500ms);
  const auto sent = std::chrono::steady_clock::now();
  g.signal(SIGTERM);
  const int code = g.wait(30s);
  const auto took = std::chrono::steady_clock::now() - sent;
  INFO(g.err());
  CHECK(code == 0);
  CHECK(took < 3s);
  CHECK(g.err().find("gantry: stopped during start-up") != std::string::npos);
}
