#include "tools/catalog.h"

#include <catch2/catch.hpp>

#include "tools/repair.h"

using namespace gantry;
using namespace gantry::tools;

namespace {

class StaticSource final : public ToolSource {
 public:
  explicit StaticSource(const std::vector<std::string>& names) {
    std::vector<ToolSchema> tools;
    tools.reserve(names.size());
    for (const auto& name : names) tools.push_back({name, "d", "{}"});
    tools_ = gantry::makeToolList(std::move(tools));
  }
  gantry::ToolList tools() const override { return tools_; }
  ToolResult call(const std::string& name, const std::string&, const CallContext&) override {
    return {true, name};
  }

 private:
  gantry::ToolList tools_;
};

struct Fixture {
  StaticSource garmin{{"garmin__get_hrv", "garmin__get_sleep", "garmin__delete_activity"}};
  StaticSource google{{"google-search__google_search"}};
  StaticSource builtin{{"memory_store", "memory_recall", "memory_forget"}};
  Catalog catalog;
  Fixture() {
    catalog.add(&garmin);
    catalog.add(&google);
    catalog.add(&builtin);
  }
};

}  // namespace

TEST_CASE("an exact name resolves without repair", "[tools]") {
  Fixture f;
  auto r = f.catalog.resolve("garmin__get_hrv");
  CHECK(r.source == &f.garmin);
  CHECK(r.name == "garmin__get_hrv");
  CHECK_FALSE(r.repaired);
}

TEST_CASE("misspelt names are repaired when exactly one tool can be meant", "[tools]") {
  Fixture f;
  const std::pair<const char*, const char*> table[] = {
      {"google_search__google_search", "google-search__google_search"},  // hyphen
      {"Garmin__Get_HRV", "garmin__get_hrv"},                            // case
      {"GARMIN__GET-HRV", "garmin__get_hrv"},                            // case and hyphen
      {"get_hrv", "garmin__get_hrv"},                                    // missing prefix
      {"mcp__get_hrv", "garmin__get_hrv"},                               // invented prefix
      {"garmn__get_sleep", "garmin__get_sleep"},                         // wrong prefix
      {"functions.get_hrv", "garmin__get_hrv"},                          // functions. namespace
      {"functions.garmin__get_hrv", "garmin__get_hrv"},                  // namespace + prefix
      {"garmin.get_sleep", "garmin__get_sleep"},                         // dotted prefix
      {"mcp__memory_store", "memory_store"},                             // prefixed built-in
      {"Memory-Recall", "memory_recall"},                                // built-in case/hyphen
  };
  for (const auto& [written, meant] : table) {
    INFO(written);
    auto r = f.catalog.resolve(written);
    CHECK(r.name == meant);
    CHECK(r.repaired);
    CHECK(r.source != nullptr);
  }
}

TEST_CASE("an ambiguous name is not repaired and lists the closest tools", "[tools]") {
  StaticSource a{{"alpha__search", "alpha__fetch"}};
  StaticSource b{{"beta__search"}};
  Catalog catalog;
  catalog.add(&a);
  catalog.add(&b);
  auto r = catalog.resolve("search");
  CHECK(r.source == nullptr);
  CHECK_FALSE(r.repaired);
  REQUIRE(r.candidates.size() == 3);
  CHECK(r.candidates[0] != "alpha__fetch");
  CHECK(r.candidates[1] != "alpha__fetch");
}

TEST_CASE("an unknown name gets up to five candidates ordered by edit distance", "[tools]") {
  Fixture f;
  auto r = f.catalog.resolve("get_slep");
  CHECK(r.source == nullptr);
  REQUIRE(r.candidates.size() == 5);
  CHECK(r.candidates.front() == "garmin__get_sleep");
}

TEST_CASE("schemas come out sorted by name", "[tools]") {
  Fixture f;
  const auto list = f.catalog.schemas();
  const auto& schemas = *list;
  REQUIRE(schemas.size() == 7);
  for (std::size_t i = 1; i < schemas.size(); ++i) CHECK(schemas[i - 1].name < schemas[i].name);
}

TEST_CASE("edit distance counts insertions, deletions and substitutions", "[tools]") {
  CHECK(editDistance("kitten", "sitting") == 3);
  CHECK(editDistance("", "abc") == 3);
  CHECK(editDistance("same", "same") == 0);
}
TEST_CASE("a tool source that states no policy allows its tools", "[tools]") {
  Fixture f;
  auto resolved = f.catalog.resolve("memory_store");
  REQUIRE(resolved.source == &f.builtin);
  CHECK(resolved.source->policy("memory_store") == Policy::kAllow);
}
