#include "tools/catalog.h"

#include <algorithm>
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
  std::string namePrefix() const override { return prefix_; }
  std::string outage() const override { return outage_; }

  /// A server's source that is down: no tools, and its outage.
  static StaticSource down(std::string prefix) {
    StaticSource source({});
    source.outage_ = "server " + prefix + " is down since then; its tools are unavailable for now";
    source.prefix_ = std::move(prefix);
    return source;
  }

 private:
  gantry::ToolList tools_;
  std::string prefix_;
  std::string outage_;
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

TEST_CASE("an ambiguous name is not repaired and lists only the tools close to it", "[tools]") {
  StaticSource a{{"alpha__search", "alpha__fetch"}};
  StaticSource b{{"beta__search"}};
  Catalog catalog;
  catalog.add(&a);
  catalog.add(&b);
  auto r = catalog.resolve("search");
  CHECK(r.source == nullptr);
  CHECK_FALSE(r.repaired);
  CHECK(r.candidates == std::vector<std::string>{"alpha__search", "beta__search"});
}

TEST_CASE("an unknown name gets up to five close candidates, closest first", "[tools]") {
  StaticSource sleep{{"x__get_sleep", "x__get_sleeps", "x__get_slept", "x__got_sleep",
                      "x__get_steep", "x__set_sleep", "x__get_hrv"}};
  Catalog catalog;
  catalog.add(&sleep);
  auto r = catalog.resolve("get_sleap");
  CHECK(r.source == nullptr);
  REQUIRE(r.candidates.size() == 5);
  CHECK(r.candidates.front() == "x__get_sleep");
  CHECK(std::count(r.candidates.begin(), r.candidates.end(), "x__get_hrv") == 0);
}

TEST_CASE("a name close to no tool gets no candidates", "[tools]") {
  Fixture f;
  for (const char* name : {"remember_forever", "fetch__fetch", "everything__echo", "x"}) {
    INFO(name);
    auto r = f.catalog.resolve(name);
    CHECK(r.source == nullptr);
    CHECK(r.candidates.empty());
  }
}

TEST_CASE("a single underscore between server and tool is repaired when one tool is meant",
          "[tools]") {
  Fixture f;
  auto r = f.catalog.resolve("garmin_get_hrv");
  CHECK(r.source == &f.garmin);
  CHECK(r.name == "garmin__get_hrv");
  CHECK(r.repaired);
  CHECK(f.catalog.resolve("Google-Search_google_search").name == "google-search__google_search");
  // a__b_c and a_b__c both read a_b_c: neither is meant more than the other.
  StaticSource a{{"a__b_c"}};
  StaticSource b{{"a_b__c"}};
  Catalog catalog;
  catalog.add(&a);
  catalog.add(&b);
  CHECK(catalog.resolve("a_b_c").source == nullptr);
}

TEST_CASE("a tool of a server that is down gets its outage, neither a repair nor candidates",
          "[tools]") {
  StaticSource down = StaticSource::down("everything");
  StaticSource fetch{{"fetch__fetch", "other__echo"}};
  Catalog catalog;
  catalog.add(&down);
  catalog.add(&fetch);
  for (const char* name : {"everything__echo", "Everything.echo", "everything_echo"}) {
    INFO(name);
    auto r = catalog.resolve(name);
    CHECK(r.source == nullptr);  // other__echo is up, but not the tool meant
    CHECK(r.candidates.empty());
    CHECK(r.outage == "server everything is down since then; its tools are unavailable for now");
  }
  CHECK(catalog.resolve("fetch__fetch").source == &fetch);
  CHECK(catalog.resolve("everythin__echo").outage.empty());  // another prefix
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
