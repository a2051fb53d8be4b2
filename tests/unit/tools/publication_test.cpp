#include "tools/publication.h"

#include <algorithm>
#include <catch2/catch.hpp>

#include "fakes/fake_tool_source.h"
#include "tools/enable_tool.h"
#include "tools/naming.h"
#include "unit/memory/temp_store.h"

using namespace gantry;
using namespace gantry::tools;
using gantry::testing::FakeToolSource;

namespace {

constexpr int64_t kMinuteMs = 60000;

std::vector<std::string> names(const gantry::ToolList& list) {
  const auto& schemas = *list;
  std::vector<std::string> out;
  out.reserve(schemas.size());
  for (const auto& s : schemas) out.push_back(s.name);
  return out;
}

/// Built-ins memory_*, two servers (garmin, web) and a clock the test moves.
struct Fixture {
  testing::TempStore temp;
  FakeToolSource memory{{"memory_store", "memory_recall"}};
  FakeToolSource garmin{{"garmin__get_sleep", "garmin__get_hrv"}};
  FakeToolSource web{{"web__search", "web__fetch"}};
  Catalog catalog;
  int64_t now_ms = 1000000;

  Fixture() {
    garmin.server_name = "garmin";
    garmin.server_summary = "Garmin health data";
    web.server_name = "web";
    catalog.add(&garmin);
    catalog.add(&memory);
    catalog.add(&web);
  }
  Publication publication(PublishMode mode = PublishMode::kLazy) {
    PublishOptions options;
    options.mode = mode;
    options.hold = std::chrono::minutes(10);
    options.clock = [this] { return now_ms; };
    return Publication(catalog, temp.store(), options);
  }
};

}  // namespace

TEST_CASE("lazy publishing is chosen only above TOOL_EAGER_MAX_TOKENS", "[publication]") {
  CHECK(defaultPublishMode(1000, 1000) == PublishMode::kEager);
  CHECK(defaultPublishMode(1001, 1000) == PublishMode::kLazy);
}

TEST_CASE("eager publishing publishes the whole catalog", "[publication]") {
  Fixture f;
  auto p = f.publication(PublishMode::kEager);
  CHECK(names(p.schemas("c")) == names(f.catalog.schemas()));
  CHECK(p.listingBlock().empty());
}

TEST_CASE("lazy publishing starts with the built-ins only", "[publication]") {
  Fixture f;
  auto p = f.publication();
  CHECK(names(p.schemas("c")) == std::vector<std::string>{"memory_recall", "memory_store"});
}

TEST_CASE("enabling servers appends their sorted tools after what was published", "[publication]") {
  Fixture f;
  auto p = f.publication();
  REQUIRE(p.enable("c", "web"));
  REQUIRE(p.enable("c", "garmin"));
  CHECK(names(p.schemas("c")) == std::vector<std::string>{"memory_recall", "memory_store",
                                                          "web__fetch", "web__search",
                                                          "garmin__get_hrv", "garmin__get_sleep"});
  CHECK(names(p.schemas("other")).size() == 2);  // per chat
}

TEST_CASE("enabling a server that does not exist is refused", "[publication]") {
  Fixture f;
  auto p = f.publication();
  CHECK_FALSE(p.enable("c", "gramin"));
  CHECK_FALSE(p.enable("c", ""));  // the built-ins are no server
  CHECK(p.schemas("c")->size() == 2);
}

TEST_CASE("an enabled server survives a restart", "[publication]") {
  Fixture f;
  f.publication().enable("c", "garmin");
  auto restarted = f.publication();
  CHECK(restarted.schemas("c")->size() == 4);
}

TEST_CASE("a hold runs out only at the start of a turn", "[publication]") {
  Fixture f;
  auto p = f.publication();
  p.enable("c", "garmin");
  f.now_ms += 11 * kMinuteMs;
  CHECK(p.schemas("c")->size() == 4);  // mid-turn: still published
  p.beginTurn("c");
  CHECK(p.schemas("c")->size() == 2);
}

TEST_CASE("each call renews its server's hold without moving it", "[publication]") {
  Fixture f;
  auto p = f.publication();
  p.enable("c", "web");
  p.enable("c", "garmin");
  f.now_ms += 8 * kMinuteMs;
  p.noteCall("c", f.web);
  f.now_ms += 8 * kMinuteMs;
  p.beginTurn("c");
  CHECK(names(p.schemas("c")) ==
        std::vector<std::string>{"memory_recall", "memory_store", "web__fetch", "web__search"});
}

TEST_CASE("calling a tool of a server not yet enabled enables it", "[publication]") {
  Fixture f;
  auto p = f.publication();
  p.noteCall("c", f.garmin);
  p.noteCall("c", f.memory);  // a built-in: nothing to enable
  CHECK(p.schemas("c")->size() == 4);
}

TEST_CASE("the lazy listing names each server with its tools and est. tokens", "[publication]") {
  Fixture f;
  auto block = f.publication().listingBlock();
  CHECK_THAT(block, Catch::Contains("mcp_enable"));
  CHECK_THAT(block, Catch::Contains("\n- garmin: 2 tools, ~"));
  CHECK_THAT(block, Catch::Contains("est. tokens — Garmin health data"));
  CHECK_THAT(block, Catch::Contains("\n- web: 2 tools, ~"));
  CHECK_THAT(block, !Catch::Contains("memory"));
}

TEST_CASE("mcp_enable enables the calling chat's server", "[publication]") {
  Fixture f;
  auto p = f.publication();
  McpEnableTool tool(p);
  CallContext context{"c", nullptr, std::chrono::seconds(1)};
  auto result = tool.call("mcp_enable", R"({"server":"garmin"})", context);
  CHECK(result.ok);
  CHECK_THAT(result.text, Catch::Contains("2 tools"));
  CHECK(p.schemas("c")->size() == 4);
}

TEST_CASE("mcp_enable of an unknown server answers with the real names", "[publication]") {
  Fixture f;
  auto p = f.publication();
  McpEnableTool tool(p);
  CallContext context{"c", nullptr, std::chrono::seconds(1)};
  auto result = tool.call("mcp_enable", R"({"server":"gramin"})", context);
  CHECK_FALSE(result.ok);
  CHECK_THAT(result.text, Catch::Contains("garmin, web"));
  CHECK(p.schemas("c")->size() == 2);
}

namespace {

std::size_t tokensOf(const FakeToolSource& source) {
  std::size_t n = 0;
  const auto tools = source.tools();
  for (const auto& s : *tools) n += estimateTokens(s.name, s.description, s.parameters_json);
  return n;
}

Publication capped(Fixture& f, PublishMode mode, std::size_t max_tokens) {
  PublishOptions options;
  options.mode = mode;
  options.clock = [&f] { return f.now_ms; };
  options.max_tokens = max_tokens;
  return Publication(f.catalog, f.temp.store(), options);
}

}  // namespace

TEST_CASE("eager publishing withholds a server that comes up late past TOOL_SCHEMA_MAX_TOKENS",
          "[publication]") {
  Fixture f;
  std::vector<std::string> garmin_tools = {"garmin__get_sleep", "garmin__get_hrv"};
  f.garmin.setNames({});  // not up yet
  auto p = capped(f, PublishMode::kEager, tokensOf(f.memory) + tokensOf(f.web) + 5);
  REQUIRE(p.checkAtStart().isOk());
  auto before = names(p.schemas("c"));
  CHECK(before.size() == 4);
  f.garmin.setNames(garmin_tools);  // up now, first in the catalog, but would not fit
  CHECK(names(p.schemas("c")) == before);
  CHECK_FALSE(p.published("c", "garmin"));
  CHECK(p.publishedTokens("c") <= tokensOf(f.memory) + tokensOf(f.web) + 5);
}

TEST_CASE("boot fails when what is published at start is over TOOL_SCHEMA_MAX_TOKENS",
          "[publication]") {
  Fixture f;
  const std::size_t all = tokensOf(f.memory) + tokensOf(f.web) + tokensOf(f.garmin);
  auto eager = capped(f, PublishMode::kEager, all - 1);
  REQUIRE_FALSE(eager.checkAtStart().isOk());
  CHECK_THAT(eager.checkAtStart().message(),
             Catch::Contains("TOOL_SCHEMA_MAX_TOKENS=" + std::to_string(all - 1)));
  // Lazy publishes the built-ins only at start, so the same cap lets it boot.
  CHECK(capped(f, PublishMode::kLazy, all - 1).checkAtStart().isOk());
  CHECK_FALSE(capped(f, PublishMode::kLazy, tokensOf(f.memory) - 1).checkAtStart().isOk());
}

TEST_CASE("mcp_enable refuses a server that would take the chat over TOOL_SCHEMA_MAX_TOKENS",
          "[publication]") {
  Fixture f;
  auto p = capped(f, PublishMode::kLazy, tokensOf(f.memory) + tokensOf(f.garmin) + 1);
  McpEnableTool enable(p);
  CallContext context{"c", nullptr, std::chrono::seconds(5)};
  CHECK(enable.call("mcp_enable", R"({"server":"garmin"})", context).ok);
  auto refused = enable.call("mcp_enable", R"({"server":"web"})", context);
  CHECK_FALSE(refused.ok);
  CHECK_THAT(refused.text, Catch::Contains("TOOL_SCHEMA_MAX_TOKENS"));
  CHECK_FALSE(p.published("c", "web"));
  // Calling one of its tools by name runs it but does not publish the server either.
  CHECK_FALSE(p.noteCall("c", f.web));
  CHECK_FALSE(p.published("c", "web"));
  CHECK(p.published("c", "garmin"));
}

namespace {

/// A source that hands out the same list until set() replaces it, as the real ones do.
class HeldTools final : public gantry::tools::ToolSource {
 public:
  HeldTools(std::string server, const std::vector<std::string>& names)
      : server_(std::move(server)) {
    set(names);
  }
  void set(const std::vector<std::string>& names) {
    std::vector<ToolSchema> schemas;
    schemas.reserve(names.size());
    for (const auto& name : names) schemas.push_back({name, "d", "{}"});
    list_ = gantry::makeToolList(std::move(schemas));
  }
  gantry::ToolList tools() const override { return list_; }
  gantry::tools::ToolResult call(const std::string&, const std::string&,
                                 const gantry::tools::CallContext&) override {
    return {true, "ok"};
  }
  std::string server() const override { return server_; }

 private:
  std::string server_;
  gantry::ToolList list_;
};

}  // namespace

TEST_CASE("the published list stays the same until a source's tools change", "[publication]") {
  for (PublishMode mode : {PublishMode::kEager, PublishMode::kLazy}) {
    testing::TempStore temp;
    HeldTools builtins("", {"memory_store"});
    HeldTools garmin("garmin", {"garmin__get_sleep"});
    Catalog catalog;
    catalog.add(&builtins);
    catalog.add(&garmin);
    PublishOptions options;
    options.mode = mode;
    Publication p(catalog, temp.store(), options);
    if (mode == PublishMode::kLazy) REQUIRE(p.enable("c", "garmin"));
    const auto first = p.schemas("c");
    auto sorted = [](const gantry::ToolList& list) {  // eager sorts all, lazy by block
      auto out = names(list);
      std::sort(out.begin(), out.end());
      return out;
    };
    CHECK(sorted(first) == std::vector<std::string>{"garmin__get_sleep", "memory_store"});
    CHECK(p.schemas("c") == first);  // the very list: a provider keeps its encoding
    garmin.set({"garmin__get_sleep", "garmin__get_hrv"});
    const auto changed = p.schemas("c");
    CHECK(changed != first);
    CHECK(sorted(changed) ==
          std::vector<std::string>{"garmin__get_hrv", "garmin__get_sleep", "memory_store"});
    CHECK(p.schemas("c") == changed);
  }
}
