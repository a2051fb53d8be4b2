// Lazy tool publishing in the turn loop: what the model is offered call by call, and that
// enabling a server keeps every request's prefix byte-identical.

#include <catch2/catch.hpp>

#include "tools/enable_tool.h"
#include "unit/agent/agent_fixture.h"

using namespace gantry;
using namespace gantry::testing;

namespace {

/// The fixture with `serial` as the MCP server "serial" and lazy publishing.
struct LazyFixture : AgentFixture {
  std::unique_ptr<tools::McpEnableTool> enable;
  LazyFixture() {
    serial.server_name = "serial";
    serial.server_summary = "a serial test server";
    tools::PublishOptions lazy;
    lazy.mode = tools::PublishMode::kLazy;
    publication = std::make_unique<tools::Publication>(catalog, temp.store(), lazy);
    enable = std::make_unique<tools::McpEnableTool>(*publication);
    catalog.add(enable.get());
  }
};

std::vector<std::string> names(const std::vector<ToolSchema>& schemas) {
  std::vector<std::string> out;
  out.reserve(schemas.size());
  for (const auto& s : schemas) out.push_back(s.name);
  return out;
}

/// A request as the endpoint would see it, in a fixed order: tools first, then messages.
std::string serialized(const FakeProvider::Request& r) {
  std::string out;
  for (const auto& t : r.tools)
    out += "tool " + t.name + "|" + t.description + "|" + t.parameters_json + "\n";
  return out;
}

bool startsWith(const std::string& text, const std::string& prefix) {
  return text.compare(0, prefix.size(), prefix) == 0;
}

}  // namespace

TEST_CASE("a lazy turn offers the built-ins and lists the servers in the system block",
          "[agent][lazy]") {
  LazyFixture f;
  f.provider.reply("hello");
  REQUIRE(f.run("hi").status.isOk());
  auto requests = f.provider.requests();
  REQUIRE(requests.size() == 1);
  CHECK(names(requests[0].tools) == std::vector<std::string>{"fetch", "lookup", "mcp_enable"});
  CHECK_THAT(requests[0].messages[0].content,
             Catch::Contains("- serial: 2 tools, ~") && Catch::Contains("a serial test server"));
}

TEST_CASE("mcp_enable publishes the server from the next call, appended after the rest",
          "[agent][lazy]") {
  LazyFixture f;
  f.provider.callTools({call("c1", "mcp_enable", R"({"server":"serial"})")});
  f.provider.callTools({call("c2", "serial__b")});
  f.provider.reply("done");
  REQUIRE(f.run("use serial").status.isOk());
  CHECK(f.serial.started() == std::vector<std::string>{"serial__b"});
  auto requests = f.provider.requests();
  REQUIRE(requests.size() == 3);
  CHECK(names(requests[1].tools) ==
        std::vector<std::string>{"fetch", "lookup", "mcp_enable", "serial__a", "serial__b"});
  // Cache stability: each request's tools and messages begin with the previous request's.
  for (std::size_t i = 1; i < requests.size(); ++i) {
    CHECK(startsWith(serialized(requests[i]), serialized(requests[i - 1])));
    REQUIRE(requests[i].messages.size() > requests[i - 1].messages.size());
    for (std::size_t m = 0; m < requests[i - 1].messages.size(); ++m) {
      CHECK(requests[i].messages[m].content == requests[i - 1].messages[m].content);
    }
  }
}

TEST_CASE("the next turn keeps the enabled server where it was", "[agent][lazy]") {
  LazyFixture f;
  f.provider.callTools({call("c1", "mcp_enable", R"({"server":"serial"})")});
  f.provider.reply("enabled");
  f.provider.reply("again");
  REQUIRE(f.run("one").status.isOk());
  REQUIRE(f.run("two").status.isOk());
  auto requests = f.provider.requests();
  REQUIRE(requests.size() == 3);
  CHECK(serialized(requests[2]) == serialized(requests[1]));
  CHECK(requests[2].messages[0].content == requests[0].messages[0].content);
}

TEST_CASE("a call to a tool of a server not yet enabled runs and enables it", "[agent][lazy]") {
  LazyFixture f;
  f.provider.callTools({call("c1", "serial__a")});
  f.provider.reply("done");
  REQUIRE(f.run("go").status.isOk());
  CHECK(f.serial.started() == std::vector<std::string>{"serial__a"});
  auto requests = f.provider.requests();
  REQUIRE(requests.size() == 2);
  CHECK(names(requests[1].tools).size() == 5);
}
