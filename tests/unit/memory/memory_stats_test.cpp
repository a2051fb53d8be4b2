// /memstats and `gantry memstats`: counts by kind and state, conflicts, backlog, size.
#include "memory/memory_stats.h"

#include <catch2/catch.hpp>
#include <map>
#include <sstream>

#include "store/memory_repo.h"
#include "store/stats_repo.h"
#include "temp_store.h"

using namespace gantry;

namespace {

struct Seeded {
  testing::TempStore temp;
  store::MemoryRepo repo{temp.store()};
  Seeded() {
    const int64_t now = store::nowMs();
    auto fact = repo.insert({"fact", "sky", "blue"}).value();
    auto newer = repo.insert({"fact", "sky", "blue by day"}).value();
    REQUIRE(repo.supersede(fact, newer).isOk());
    repo.insert({"preference", "tea", "green"});
    repo.insert({"episode", "walk", "went for a walk"});                   // backlog
    repo.insert({"episode", "old", "long ago", "chat", 1.0, now - 1000});  // expired
    auto read = repo.insert({"episode", "read", "read a book"}).value();
    REQUIRE(repo.markConsolidated({read}).isOk());
    repo.insertConflict("name", "is Bob", "USER.md: my name is Alice");
  }
};

}  // namespace

TEST_CASE("memory stats count rows by kind and state, conflicts and the backlog", "[memory]") {
  Seeded s;
  auto stats = store::StatsRepo(s.temp.store()).memory(store::nowMs()).value();
  std::map<std::string, int64_t> kinds(stats.by_kind.begin(), stats.by_kind.end());
  CHECK(kinds ==
        std::map<std::string, int64_t>{
            {"fact", 2}, {"preference", 1}, {"person", 0}, {"episode", 3}, {"insight", 0}});
  CHECK(stats.superseded == 1);
  CHECK(stats.expired == 1);
  CHECK(stats.active == 4);
  CHECK(stats.conflicts == 1);
  CHECK(stats.backlog == 1);
  CHECK(stats.database_bytes > 0);
}

TEST_CASE("gantry memstats prints one fact a row, tab-separated", "[memory]") {
  Seeded s;
  std::ostringstream out, err;
  REQUIRE(memory::memStatsCommand(s.temp.store(), {}, out, err) == 0);
  const std::string rows = out.str();
  CHECK(rows.rfind("kind\tfact\t2\nkind\tpreference\t1\n", 0) == 0);
  CHECK(rows.find("\nstate\tactive\t4\nstate\texpired\t1\nstate\tsuperseded\t1\n") !=
        std::string::npos);
  CHECK(rows.find("\nconflicts\tunresolved\t1\nconsolidation\tbacklog\t1\ndatabase\tbytes\t") !=
        std::string::npos);
  CHECK(memory::memStatsCommand(s.temp.store(), {"x"}, out, err) == 2);
  const std::string text = memory::memStatsText(s.temp.store());
  CHECK(text.find("fact 2, preference 1, person 0, episode 3, insight 0") != std::string::npos);
  CHECK(text.find("active 4, expired 1, superseded 1") != std::string::npos);
  CHECK(text.find("consolidation backlog: 1 episodes") != std::string::npos);
}
