// After a call the host cannot run as written (DESIGN 4.1): a name close to no tool, a tool
// of a server that is down, a name with one underscore too few; and a result with an image.
#include <catch2/catch.hpp>

#include "unit/agent/agent_fixture.h"

using gantry::Role;
using gantry::testing::AgentFixture;
using gantry::testing::call;
using gantry::testing::FakeToolSource;
using gantry::tools::ToolResult;

namespace {

constexpr const char* kOutage =
    "server everything is down since 2026-12-07T16:02:11Z (3m 0s ago); its tools are "
    "unavailable for now";

/// The fixture with a server that is down, its tools published as everything__….
struct DownFixture : AgentFixture {
  FakeToolSource everything{{}};
  DownFixture() {
    everything.server_name = "everything";
    everything.name_prefix = "everything";
    everything.outage_text = kOutage;
    catalog.add(&everything);
  }
};

}  // namespace

TEST_CASE("a name close to no tool is answered with the tools again, not a constrained retry",
          "[agent]") {
  AgentFixture f;
  f.provider.callTools({call("c1", "remember_forever")});
  f.provider.reply("I cannot do that.");
  auto result = f.run("remember this forever");
  REQUIRE(result.status.isOk());
  CHECK(result.reply == "I cannot do that.");
  const auto second = f.provider.requests().at(1);
  CHECK(second.response_schema_json.empty());
  CHECK(second.tools_offered);
  CHECK(second.messages.back().content.find("Did you mean") == std::string::npos);
}

TEST_CASE("a close name gets a constrained retry that can still answer in text", "[agent]") {
  AgentFixture f;
  f.provider.callTools({call("c1", "lookp")});
  f.provider.reply("Nothing to look up after all.");  // the provider unwrapped the text choice
  REQUIRE(f.run("look").status.isOk());
  const auto second = f.provider.requests().at(1);
  CHECK(second.response_schema_json.find(R"("enum":["lookup","answer_in_text"])") !=
        std::string::npos);
  CHECK(f.tools.started().empty());
}

TEST_CASE(
    "a call to a tool of a server that is down is told so, with no retry constrained to "
    "another tool",
    "[agent]") {
  DownFixture f;
  f.provider.callTools({call("c1", "everything__echo", R"({"message":"hi"})")});
  f.provider.reply("The everything server is down.");
  auto result = f.run("echo hi");
  REQUIRE(result.status.isOk());
  const auto second = f.provider.requests().at(1);
  CHECK(second.response_schema_json.empty());
  CHECK(second.messages.back().content == std::string("error: ") + kOutage + ".");
  CHECK(f.tools.started().empty());
  CHECK(f.serial.started().empty());
}

TEST_CASE("a single underscore between server and tool is repaired, the arguments kept",
          "[agent]") {
  AgentFixture f;
  std::string ran_with;
  f.serial.handler = [&](const std::string&, const std::string& arguments) {
    ran_with = arguments;
    return ToolResult{true, "done"};
  };
  f.provider.callTools({call("c1", "serial_a", R"({"path":"/tmp/x"})")});
  f.provider.reply("ok");
  REQUIRE(f.run("do a").status.isOk());
  CHECK(f.serial.started() == std::vector<std::string>{"serial__a"});
  CHECK(ran_with == R"({"path":"/tmp/x"})");
  CHECK(f.provider.requests().at(1).response_schema_json.empty());
}

TEST_CASE("a tool result's images go to the next model call with the result", "[agent]") {
  AgentFixture f;
  f.tools.handler = [](const std::string&, const std::string&) {
    return ToolResult{true, "[image image/png, 8 bytes]", {{"image/png", "iVBORw0KGgo=", {}}}};
  };
  f.provider.callTools({call("c1", "lookup")});
  f.provider.reply("a tiny image");
  REQUIRE(f.run("show me").status.isOk());
  const auto fed = f.provider.requests().at(1).messages.back();
  CHECK(fed.role == Role::kTool);
  CHECK(fed.content == "[image image/png, 8 bytes]");
  REQUIRE(fed.images.size() == 1);
  CHECK(fed.images[0].data_base64 == "iVBORw0KGgo=");
}
