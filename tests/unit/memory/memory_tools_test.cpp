#include "memory/memory_tools.h"

#include <Poco/JSON/Parser.h>

#include <catch2/catch.hpp>

#include "unit/memory/temp_store.h"

using gantry::memory::MemoryToolOptions;
using gantry::memory::MemoryTools;
using gantry::store::MemoryRepo;
using gantry::testing::TempStore;

namespace {
gantry::tools::ToolResult run(MemoryTools& tools, const std::string& name,
                              const std::string& args) {
  return tools.call(name, args, gantry::tools::CallContext{});
}
}  // namespace

TEST_CASE("the memory tools publish three valid, stable schemas", "[memory]") {
  TempStore temp;
  MemoryRepo repo(temp.store());
  MemoryTools tools(repo);
  const auto first_list = tools.tools();
  const auto second_list = tools.tools();
  const auto& first = *first_list;
  const auto& second = *second_list;
  REQUIRE(first.size() == 3);
  for (std::size_t i = 0; i < first.size(); ++i) {
    CHECK(first[i].name == second[i].name);
    CHECK(first[i].parameters_json == second[i].parameters_json);
    CHECK(first[i].description == second[i].description);
    Poco::JSON::Parser parser;
    CHECK_NOTHROW(parser.parse(first[i].parameters_json));
  }
  CHECK(first[0].name == "memory_forget");
  CHECK(first[1].name == "memory_recall");
  CHECK(first[2].name == "memory_store");
}

TEST_CASE("memory_store writes a chat row that memory_recall finds", "[memory]") {
  TempStore temp;
  MemoryRepo repo(temp.store());
  MemoryTools tools(repo);
  auto stored =
      run(tools, "memory_store", R"({"kind":"person","subject":"mom","content":"prefers calls"})");
  REQUIRE(stored.ok);
  CHECK(stored.text.rfind("stored #", 0) == 0);
  auto rows = repo.list().value();
  REQUIRE(rows.size() == 1);
  CHECK(rows[0].source == "chat");
  CHECK(rows[0].expires_at == 0);
  auto recalled = run(tools, "memory_recall", R"({"query":"how should I reach mom?"})");
  REQUIRE(recalled.ok);
  CHECK(recalled.text == "- #" + std::to_string(rows[0].id) + " (person) mom: prefers calls\n");
}

TEST_CASE("episodes stored by the tool expire after the configured TTL", "[memory]") {
  TempStore temp;
  MemoryRepo repo(temp.store());
  MemoryToolOptions options;
  options.episode_ttl = std::chrono::hours(48);
  MemoryTools tools(repo, options);
  int64_t before = gantry::store::nowMs();
  REQUIRE(run(tools, "memory_store", R"({"kind":"episode","subject":"x","content":"y"})").ok);
  REQUIRE(run(tools, "memory_store", R"({"kind":"insight","subject":"x","content":"z"})").ok);
  auto rows = repo.list().value();
  REQUIRE(rows.size() == 2);
  CHECK(rows[0].expires_at == 0);  // insight
  CHECK(rows[1].expires_at >= before + 48L * 3600 * 1000);
  CHECK(rows[1].expires_at <= gantry::store::nowMs() + 48L * 3600 * 1000);
  CHECK(gantry::memory::expiryFor("fact", 5, options) == 0);
  CHECK(gantry::memory::expiryFor("preference", 5, options) == 0);
  CHECK(gantry::memory::expiryFor("person", 5, options) == 0);
}

TEST_CASE("bad arguments come back as clear tool errors", "[memory]") {
  TempStore temp;
  MemoryRepo repo(temp.store());
  MemoryTools tools(repo);
  struct Case {
    const char* name;
    const char* args;
    const char* says;
  };
  for (const Case& c : {
           Case{"memory_store", "{not json", "not valid JSON"},
           Case{"memory_store", "[1,2]", "must be a JSON object"},
           Case{"memory_store", R"({"kind":"rumour","subject":"a","content":"b"})", "kind must be"},
           Case{"memory_store", R"({"kind":"fact","subject":"","content":"b"})", "non-empty"},
           Case{"memory_store", R"({"kind":"fact","subject":"a","content":3})", "non-empty"},
           Case{"memory_recall", "{}", "query must be"},
           Case{"memory_forget", "{}", "integer id or a non-empty query"},
           Case{"memory_forget", R"({"id":"abc"})", "integer id"},
           Case{"memory_forget", R"({"id":42})", "no memory #42"},
           Case{"memory_nothing", "{}", "unknown memory tool"},
       }) {
    INFO(c.name << " " << c.args);
    auto result = run(tools, c.name, c.args);
    CHECK_FALSE(result.ok);
    CHECK(result.text.find(c.says) != std::string::npos);
  }
  CHECK(repo.count().value() == 0);
}

TEST_CASE("memory_forget removes by id, also given as a string, or by query", "[memory]") {
  TempStore temp;
  MemoryRepo repo(temp.store());
  MemoryTools tools(repo);
  REQUIRE(
      run(tools, "memory_store", R"({"kind":"fact","subject":"car","content":"blue Volvo"})").ok);
  REQUIRE(run(tools, "memory_store", R"({"kind":"fact","subject":"bike","content":"red"})").ok);
  auto rows = repo.list().value();
  auto by_id = run(tools, "memory_forget", R"({"id":")" + std::to_string(rows[1].id) + R"("})");
  REQUIRE(by_id.ok);
  CHECK(by_id.text.find("blue Volvo") != std::string::npos);
  auto by_query = run(tools, "memory_forget", R"({"query":"bike"})");
  REQUIRE(by_query.ok);
  CHECK(repo.count().value() == 0);
  CHECK(run(tools, "memory_recall", R"({"query":"car bike"})").text == "no memories match");
}

TEST_CASE("recall ranks persons above episodes at equal relevance", "[memory]") {
  TempStore temp;
  MemoryRepo repo(temp.store());
  MemoryTools tools(repo);
  REQUIRE(
      run(tools, "memory_store", R"({"kind":"episode","subject":"ann","content":"met ann"})").ok);
  REQUIRE(
      run(tools, "memory_store", R"({"kind":"person","subject":"ann","content":"met ann"})").ok);
  auto recalled = run(tools, "memory_recall", R"({"query":"ann"})");
  REQUIRE(recalled.ok);
  CHECK(recalled.text.find("(person)") < recalled.text.find("(episode)"));
}
