// Against the real MCP servers from npm (tests/peers, installed with
// `npm ci --prefix tests/peers`). Skipped with a warning when node or the peers are missing.

#include <Poco/Net/ServerSocket.h>

#include <catch2/catch.hpp>
#include <fstream>

#include "mcp/child_process.h"
#include "mcp/http_transport.h"
#include "mcp_test_support.h"

using namespace gantry;
using namespace gantry::mcp;
using namespace gantry::mcp::testing;
using namespace std::chrono_literals;

namespace {

// Sandboxed as the daemon runs them: the peers' folder (Node and its packages) granted read.
ServerSpec everythingStdio(const std::string& script) {
  ServerSpec spec;
  spec.name = "everything";
  spec.command = gantry::testing::peers::node();
  spec.args = {script, "stdio"};
  spec.sandbox.read = {gantry::testing::peers::dir()};
  return spec;
}

int freePort() {
  Poco::Net::ServerSocket socket(Poco::Net::SocketAddress("127.0.0.1", 0));
  return socket.address().port();
}

/// server-everything's Streamable HTTP mode as a child on a free port.
struct HttpEverything {
  int port = freePort();
  std::unique_ptr<ChildProcess> child;
  explicit HttpEverything(const std::string& script) {
    auto env = minimalEnvironment();
    env["PORT"] = std::to_string(port);
    auto spawned = ChildProcess::spawn("sh",
                                       {"-c", "exec '" + gantry::testing::peers::node() + "' '" +
                                                  script + "' streamableHttp >/dev/null 2>&1"},
                                       env);
    REQUIRE(spawned.isOk());
    child = std::move(spawned.value());
  }
  ~HttpEverything() { child->stop(0ms); }
  std::string url() const { return "http://127.0.0.1:" + std::to_string(port) + "/mcp"; }
};

bool published(McpServer* server, const std::string& name) {
  const auto tools = server->tools();
  for (const auto& tool : *tools) {
    if (tool.name == name) return true;
  }
  return false;
}

void exerciseEverything(McpServer* server) {
  auto echo = server->call("everything__echo", R"({"message":"hello"})", context());
  CHECK(echo.ok);
  CHECK(echo.text == "Echo: hello");
  auto sum = server->call("everything__get-sum", R"({"a":2,"b":3})", context());
  CHECK(sum.ok);
  CHECK_THAT(sum.text, Catch::Contains("is 5"));
  auto invalid = server->call("everything__get-sum", R"({"a":"x"})", context());
  CHECK_FALSE(invalid.ok);
  CHECK_THAT(invalid.text, Catch::Contains("Invalid arguments"));
  auto image = server->call("everything__get-tiny-image", "{}", context());
  CHECK(image.ok);
  CHECK_THAT(image.text, Catch::Contains("[image image/png, "));
  auto longer = server->call("everything__trigger-long-running-operation",
                             R"({"duration":1,"steps":2})", context());
  CHECK(longer.ok);
  CHECK_THAT(longer.text, Catch::Contains("Long running operation completed"));
  auto timed_out = server->call("everything__trigger-long-running-operation",
                                R"({"duration":30,"steps":2})", context(500ms));
  CHECK_FALSE(timed_out.ok);
  CHECK_THAT(timed_out.text, Catch::Contains("no answer within 0.5 s"));
  CHECK(server->call("everything__echo", R"({"message":"still here"})", context()).ok);
}

}  // namespace

TEST_CASE("server-everything over stdio: echo, sum, errors, images, long runs, timeouts",
          "[mcp][peers]") {
  GANTRY_REQUIRE_PEER(script, "server-everything");
  LogCapture logs;
  SandboxRoot sandbox;
  auto host = startHost({everythingStdio(script)}, sandbox.options());
  auto* server = host->server("everything");
  REQUIRE(eventually([&] { return server->status().state == ServerState::kUp; }));
  CHECK(published(server, "everything__echo"));
  CHECK(published(server, "everything__trigger-long-running-operation"));
  exerciseEverything(server);
  CHECK(logs.contains("mcp_request_cancelled"));
  CHECK(logs.contains("\"msg\":\"mcp_stderr\",\"server\":\"everything\""));
}

TEST_CASE("server-everything over stdio announces list changes and they are followed",
          "[mcp][peers]") {
  GANTRY_REQUIRE_PEER(script, "server-everything");
  LogCapture logs;
  SandboxRoot sandbox;
  auto host = startHost({everythingStdio(script)}, sandbox.options());
  auto* server = host->server("everything");
  // simulate-research-query is registered once notifications/initialized arrived, with a
  // list_changed notification; the catalog ends up with it. get-roots-list needs the
  // roots capability, which gantry does not declare.
  REQUIRE(eventually([&] { return logs.contains("mcp_tools_list_changed"); }));
  REQUIRE(eventually([&] { return published(server, "everything__simulate-research-query"); }));
  CHECK_FALSE(published(server, "everything__get-roots-list"));
}

TEST_CASE("server-everything over Streamable HTTP: session, echo, errors, timeouts and DELETE",
          "[mcp][peers]") {
  GANTRY_REQUIRE_PEER(script, "server-everything");
  HttpEverything peer(script);
  ServerSpec spec;
  spec.name = "everything";
  spec.url = peer.url();
  spec.headers = {{"Authorization", "Bearer test-token"}};
  auto host = startHost({spec});
  auto* server = host->server("everything");
  REQUIRE(eventually([&] { return server->status().state == ServerState::kUp; }));
  CHECK(server->status().transport == "http");
  CHECK_FALSE(server->serialized());
  exerciseEverything(server);
  host->shutdown();
  CHECK(server->tools()->empty());
}

TEST_CASE("an HTTP server that goes away is marked down and rejoins when it is back",
          "[mcp][peers]") {
  GANTRY_REQUIRE_PEER(script, "server-everything");
  auto peer = std::make_unique<HttpEverything>(script);
  const int port = peer->port;
  ServerSpec spec;
  spec.name = "everything";
  spec.url = peer->url();
  auto host = startHost({spec});
  auto* server = host->server("everything");
  REQUIRE(eventually([&] { return server->status().state == ServerState::kUp; }));
  peer.reset();
  REQUIRE(eventually([&] { return server->status().state != ServerState::kUp; }));
  CHECK(server->tools()->empty());
  CHECK_FALSE(server->call("everything__echo", R"({"message":"x"})", context()).ok);
  auto env = minimalEnvironment();
  env["PORT"] = std::to_string(port);
  auto again = ChildProcess::spawn("sh",
                                   {"-c", "exec '" + gantry::testing::peers::node() + "' '" +
                                              script + "' streamableHttp >/dev/null 2>&1"},
                                   env);
  REQUIRE(again.isOk());
  REQUIRE(eventually([&] { return published(server, "everything__echo"); }));
  CHECK(server->call("everything__echo", R"({"message":"back"})", context()).text == "Echo: back");
  host->shutdown();
  again.value()->stop(0ms);
}

TEST_CASE("server-filesystem reads a temp file", "[mcp][peers]") {
  GANTRY_REQUIRE_PEER(script, "server-filesystem");
  const auto dir =
      std::filesystem::temp_directory_path() / ("gantry_fs_" + std::to_string(::getpid()));
  std::filesystem::create_directories(dir);
  std::ofstream(dir / "note.txt") << "the secret word is gantry\n";
  ServerSpec spec;
  spec.name = "fs";
  spec.command = gantry::testing::peers::node();
  spec.args = {script, dir.string()};
  spec.sandbox.read = {gantry::testing::peers::dir(), dir.string()};
  SandboxRoot sandbox;
  auto host = startHost({spec}, sandbox.options());
  auto* server = host->server("fs");
  REQUIRE(eventually([&] { return published(server, "fs__read_text_file"); }));
  const auto args = R"({"path":")" + (dir / "note.txt").string() + R"("})";
  auto result = server->call("fs__read_text_file", args, context());
  CHECK(result.ok);
  CHECK_THAT(result.text, Catch::Contains("the secret word is gantry"));
  auto outside = server->call("fs__read_text_file", R"({"path":"/etc/passwd"})", context());
  CHECK_FALSE(outside.ok);
  std::filesystem::remove_all(dir);
}
