#include <catch2/catch.hpp>

#include "mcp_test_support.h"
#include "memory/memory_tools.h"
#include "tools/catalog.h"

using namespace gantry;
using namespace gantry::mcp;
using namespace gantry::mcp::testing;
using namespace std::chrono_literals;

namespace {

bool hasTool(McpServer* server, const std::string& name) {
  const auto tools = server->tools();
  for (const auto& tool : *tools) {
    if (tool.name == name) return true;
  }
  return false;
}

}  // namespace

TEST_CASE("tools of a stdio server are listed across pages and published with the prefix",
          "[mcp]") {
  auto host = startHost({fakeSpec({"--page-size", "2"})});
  auto* server = host->server("fake");
  REQUIRE(server->status().state == ServerState::kUp);
  CHECK(server->status().tools_listed == 18);
  CHECK(hasTool(server, "fake__echo"));
  CHECK(hasTool(server, "fake__env"));
  CHECK(server->serialized());
  CHECK(server->status().protocol_version == "2025-11-25");
  auto result = server->call("fake__echo", R"({"text":"hi"})", context());
  CHECK(result.ok);
  CHECK(result.text == "hi");
}

TEST_CASE("tools and exclude filter what is published but not what is listed", "[mcp]") {
  auto spec = fakeSpec();
  spec.tools = {"e*", "fail", "big"};
  spec.exclude = {"env"};
  spec.tools_prefix = "fk";
  auto host = startHost({spec});
  auto status = host->server("fake")->status();
  CHECK(status.tools_listed == 18);
  CHECK(status.tools_published == 3);
  std::vector<std::string> names;
  const auto tools = host->server("fake")->tools();
  for (const auto& tool : *tools) names.push_back(tool.name);
  CHECK(names == std::vector<std::string>{"fk__big", "fk__echo", "fk__fail"});
  CHECK(host->describeTools().find("fk__echo\t~") != std::string::npos);
}

TEST_CASE("published schemas are byte-identical between listings", "[mcp]") {
  auto host = startHost({fakeSpec()});
  const auto first_list = host->server("fake")->tools();
  const auto& first = *first_list;
  auto* server = host->server("fake");
  REQUIRE(server->call("fake__add_tool", "{}", context()).ok);
  REQUIRE(eventually([&] { return hasTool(server, "fake__extra"); }));
  const auto second_list = server->tools();
  const auto& second = *second_list;
  for (const auto& tool : first) {
    auto same = std::find_if(second.begin(), second.end(),
                             [&](const ToolSchema& s) { return s.name == tool.name; });
    REQUIRE(same != second.end());
    CHECK(same->parameters_json == tool.parameters_json);
    CHECK(same->description == tool.description);
  }
  CHECK(first.front().parameters_json == R"({"properties":{},"type":"object"})");
}

TEST_CASE("tools/list_changed from the server refreshes the catalog", "[mcp]") {
  auto host = startHost({fakeSpec()});
  auto* server = host->server("fake");
  CHECK_FALSE(hasTool(server, "fake__extra"));
  REQUIRE(server->call("fake__add_tool", "{}", context()).ok);
  REQUIRE(eventually([&] { return hasTool(server, "fake__extra"); }));
  CHECK(server->call("fake__extra", "{}", context()).text == "extra ran");
}

TEST_CASE("a stdio child gets only the minimal environment plus the manifest env", "[mcp]") {
  ::setenv("LLM_API_KEY", "sk-should-not-leak", 1);
  ::setenv("LC_TIME", "C", 1);
  auto spec = fakeSpec();
  spec.env = {{"GARMIN_TOKEN", "secret://garmin"}};
  auto host = startHost({spec});
  auto result = host->server("fake")->call("fake__env", "{}", context());
  REQUIRE(result.ok);
  CHECK(result.text.find("GARMIN_TOKEN\n") != std::string::npos);
  CHECK(result.text.find("PATH\n") != std::string::npos);
  CHECK(result.text.find("LC_TIME\n") != std::string::npos);
  CHECK(result.text.find("LLM_API_KEY") == std::string::npos);
  ::unsetenv("LLM_API_KEY");
}

TEST_CASE("a server crashing mid-call gives a clear error, restarts and its tools return",
          "[mcp]") {
  LogCapture logs;
  auto host = startHost({fakeSpec()});
  auto* server = host->server("fake");
  auto result = server->call("fake__crash", "{}", context());
  CHECK_FALSE(result.ok);
  CHECK_THAT(result.text, Catch::Contains("stopped while the call was running"));
  CHECK_THAT(result.text, Catch::Contains("exited with code 1"));
  REQUIRE(eventually([&] { return server->status().restarts >= 1; }));
  REQUIRE(eventually([&] { return hasTool(server, "fake__echo"); }));
  CHECK(server->call("fake__echo", R"({"text":"back"})", context()).text == "back");
  CHECK(logs.contains("mcp_server_down"));
}

TEST_CASE("a hanging call times out and the server is told to cancel it", "[mcp]") {
  auto host = startHost({fakeSpec()});
  auto* server = host->server("fake");
  auto result = server->call("fake__hang", "{}", context(300ms));
  CHECK_FALSE(result.ok);
  CHECK_THAT(result.text, Catch::Contains("no answer within 0.3 s"));
  auto cancelled = server->call("fake__last_cancelled", "{}", context());
  REQUIRE(cancelled.ok);
  CHECK(cancelled.text != "none");
}

TEST_CASE("a cancelled call returns at once and notifies the server", "[mcp]") {
  auto host = startHost({fakeSpec()});
  auto* server = host->server("fake");
  CancelToken cancel;
  std::thread canceller([&] {
    std::this_thread::sleep_for(200ms);
    cancel.cancel();
  });
  auto result = server->call("fake__hang", "{}", context(60s, &cancel));
  canceller.join();
  CHECK_FALSE(result.ok);
  CHECK_THAT(result.text, Catch::Contains("cancelled"));
  CHECK(server->call("fake__last_cancelled", "{}", context()).text != "none");
}

TEST_CASE("a server that stops answering ping is restarted", "[mcp]") {
  LogCapture logs;
  auto host = startHost({fakeSpec()});
  auto* server = host->server("fake");
  auto result = server->call("fake__freeze", "{}", context(200ms));
  CHECK_FALSE(result.ok);
  REQUIRE(eventually([&] { return logs.contains("mcp_server_hung"); }));
  REQUIRE(
      eventually([&] { return server->status().restarts >= 1 && hasTool(server, "fake__echo"); }));
  CHECK(server->call("fake__echo", R"({"text":"alive"})", context()).ok);
}

TEST_CASE("garbage lines and answers with unknown ids are skipped", "[mcp]") {
  LogCapture logs;
  auto host = startHost({fakeSpec({"--garbage-at-start"})});
  auto* server = host->server("fake");
  REQUIRE(server->status().state == ServerState::kUp);
  auto result = server->call("fake__garbage", "{}", context());
  CHECK(result.ok);
  CHECK(result.text == "after garbage");
  result = server->call("fake__wrong_id", "{}", context());
  CHECK(result.ok);
  CHECK(result.text == "right");
  CHECK(logs.contains("mcp_bad_message"));
}

TEST_CASE("a 10 MB result fails that call clearly and the server keeps working", "[mcp]") {
  auto host = startHost({fakeSpec()});
  auto* server = host->server("fake");
  auto result = server->call("fake__big", "{}", context());
  CHECK_FALSE(result.ok);
  CHECK_THAT(result.text, Catch::Contains("over the 4 MB limit"));
  result = server->call("fake__big", R"({"bytes":1000})", context());
  CHECK(result.ok);
  CHECK(result.text.size() == 1000);
}

TEST_CASE("error results, JSON-RPC errors, images and structured content map to tool results",
          "[mcp]") {
  auto host = startHost({fakeSpec()});
  auto* server = host->server("fake");
  auto fail = server->call("fake__fail", "{}", context());
  CHECK_FALSE(fail.ok);
  CHECK(fail.text == "it failed on purpose");
  auto rpc = server->call("fake__rpc_error", "{}", context());
  CHECK_FALSE(rpc.ok);
  CHECK_THAT(rpc.text, Catch::Contains("bad params on purpose"));
  auto image = server->call("fake__image", "{}", context());
  CHECK(image.text == "[image image/png, 6 bytes]");
  REQUIRE(image.images.size() == 1);
  CHECK(image.images[0].data_base64 == "AAAAAAAA");
  CHECK(server->call("fake__structured", "{}", context()).text == R"({"temperature":21})");
  auto bad = server->call("fake__echo", "{not json", context());
  CHECK_FALSE(bad.ok);
  CHECK_THAT(bad.text, Catch::Contains("not valid JSON"));
}

TEST_CASE("a server that exits at start does not block boot and keeps being retried", "[mcp]") {
  LogCapture logs;
  auto host = startHost({fakeSpec({"--exit-at-start"})});
  auto* server = host->server("fake");
  CHECK(server->status().state != ServerState::kUp);
  CHECK(server->tools()->empty());
  REQUIRE(eventually([&] { return server->status().restarts >= 2; }));
  auto result = server->call("fake__echo", "{}", context());
  CHECK_FALSE(result.ok);
  CHECK(logs.contains("exiting at start on purpose"));
  CHECK(logs.contains("mcp_server_failed"));
}

TEST_CASE(
    "a server that failed to start tells a call to its tools so, and the catalog offers "
    "no other",
    "[mcp]") {
  auto host = startHost({fakeSpec({"--exit-at-start"})});
  auto* server = host->server("fake");
  CHECK(server->namePrefix() == "fake");
  // Boot waited for its first start, which failed: it is down, not still coming up.
  CHECK_THAT(server->outage(), Catch::StartsWith("server fake is down since ") &&
                                   Catch::EndsWith(" ago); its tools are unavailable for now"));
  tools::Catalog catalog;
  for (auto* source : host->sources()) catalog.add(source);
  auto resolution = catalog.resolve("fake__echo");
  CHECK(resolution.source == nullptr);
  CHECK(resolution.candidates.empty());
  CHECK_THAT(resolution.outage, Catch::StartsWith("server fake is "));
}

TEST_CASE("a server still in its first start is not up yet", "[mcp]") {
  auto options = fastOptions();
  options.boot_wait = std::chrono::milliseconds(0);  // boot goes on while it starts
  auto host = startHost({fakeSpec({"--no-initialize"})}, options);
  CHECK_THAT(host->server("fake")->outage(),
             Catch::StartsWith("server fake is not up yet (starting since ") &&
                 Catch::EndsWith(" ago); its tools are unavailable for now"));
}

TEST_CASE("a server that was up and went down is down since then, until it is back", "[mcp]") {
  auto options = fastOptions();
  options.backoff_initial = std::chrono::seconds(30);  // stays down for the test
  auto host = startHost({fakeSpec()}, options);
  auto* server = host->server("fake");
  CHECK(server->outage().empty());
  CHECK(server->status().down_since_ms == 0);
  CHECK_FALSE(server->call("fake__crash", "{}", context()).ok);
  REQUIRE(eventually([&] { return !server->outage().empty(); }));
  CHECK_THAT(server->outage(), Catch::StartsWith("server fake is down since ") &&
                                   Catch::EndsWith(" ago); its tools are unavailable for now"));
  CHECK(server->status().down_since_ms > 0);
}

TEST_CASE("stderr floods are relayed at a bounded rate", "[mcp]") {
  LogCapture logs;
  auto host = startHost({fakeSpec()});
  REQUIRE(host->server("fake")->call("fake__stderr_flood", "{}", context()).ok);
  host->shutdown();
  CHECK(logs.count("flood line") < 1000);
  CHECK(logs.count("flood line") > 0);
  CHECK(logs.contains("mcp_stderr_suppressed"));
}

TEST_CASE("the catalog repairs names of MCP tools and routes the call", "[mcp]") {
  auto host = startHost({fakeSpec()});
  tools::Catalog catalog;
  for (auto* source : host->sources()) catalog.add(source);
  auto resolution = catalog.resolve("functions.echo");
  REQUIRE(resolution.source != nullptr);
  CHECK(resolution.repaired);
  CHECK(resolution.source->call(resolution.name, R"({"text":"ok"})", context()).text == "ok");
}

TEST_CASE("the memory backend forwards to the server's memory tools", "[mcp]") {
  auto host = startHost({fakeSpec()});
  std::string error;
  auto backend = makeMemoryBackend(*host, "fake", memory::memoryToolSchemas(), &error);
  REQUIRE(backend != nullptr);
  const auto builtin = memory::memoryToolSchemas();
  const auto published_list = backend->tools();
  const auto& published = *published_list;
  REQUIRE(published.size() == builtin.size());
  for (std::size_t i = 0; i < builtin.size(); ++i) {
    CHECK(published[i].name == builtin[i].name);
    CHECK(published[i].description == builtin[i].description);
    CHECK(published[i].parameters_json == builtin[i].parameters_json);
  }
  auto result = backend->call("memory_recall", R"({"query":"mom"})", context());
  CHECK(result.ok);
  CHECK(result.text == R"(memory_recall {"query":"mom"})");
}

TEST_CASE("the memory backend is refused for an unknown server or one without the tools", "[mcp]") {
  auto spec = fakeSpec();
  auto host = startHost({spec});
  std::string error;
  CHECK(makeMemoryBackend(*host, "nope", memory::memoryToolSchemas(), &error) == nullptr);
  CHECK_THAT(error, Catch::Contains("no server \"nope\""));
  auto lacking = startHost({fakeSpec({"--no-memory"})});
  CHECK(makeMemoryBackend(*lacking, "fake", memory::memoryToolSchemas(), &error) == nullptr);
  CHECK_THAT(error, Catch::Contains("has no memory_forget tool"));
}

TEST_CASE("auth runs the server's auth command and passes its exit code through", "[mcp]") {
  Manifest manifest;
  manifest.path = "mcp.toml";
  auto spec = fakeSpec();
  spec.auth_command = "sh";
  spec.auth_args = {"-c", "exit 7"};
  manifest.servers = {spec};
  CHECK(authCommand(manifest, "fake") == 7);
  CHECK(authCommand(manifest, "missing") == 1);
  manifest.servers[0].auth_command.clear();
  manifest.servers[0].auth_args.clear();
  CHECK(authCommand(manifest, "fake") == 1);
}

TEST_CASE("auth with only auth_args runs the server's command with them", "[mcp]") {
  Manifest manifest;
  manifest.path = "mcp.toml";
  auto spec = fakeSpec();
  spec.command = "sh";
  spec.auth_args = {"-c", "exit 5"};
  manifest.servers = {spec};
  CHECK(authCommand(manifest, "fake") == 5);
}

TEST_CASE("a call to a server that stopped reading its input ends at the call's timeout", "[mcp]") {
  auto host = startHost({fakeSpec()});
  auto* server = host->server("fake");
  CHECK_FALSE(server->call("fake__freeze", "{}", context(200ms)).ok);
  // Far more than a pipe holds: the write itself has to give up at the deadline.
  std::string text(std::size_t{4} * 1024 * 1024, 'x');
  auto started = std::chrono::steady_clock::now();
  auto result = server->call("fake__echo", R"({"text":")" + text + R"("})", context(500ms));
  CHECK_FALSE(result.ok);
  CHECK(std::chrono::steady_clock::now() - started < 3s);
}

TEST_CASE("a server's policy for its published tools is its manifest entry's", "[mcp]") {
  auto spec = fakeSpec();
  spec.policy = Policy::kAsk;
  spec.tool_policy["echo"] = Policy::kDeny;
  auto host = startHost({spec});
  auto* server = host->server("fake");
  REQUIRE(server->status().state == ServerState::kUp);
  CHECK(server->policy("fake__echo") == Policy::kDeny);
  CHECK(server->policy("fake__env") == Policy::kAsk);
  CHECK(server->policy("not_published") == Policy::kAllow);  // such a call fails on its own
}
