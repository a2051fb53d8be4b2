#include "store/memory_index_compaction.h"

#include <catch2/catch.hpp>

#include "store/maintenance.h"
#include "unit/memory/memory_index.h"
#include "unit/memory/temp_store.h"

using gantry::store::kMaxMemoryIndexTrees;
using gantry::store::MemoryIndexCompaction;
using gantry::store::MemoryRepo;
using gantry::store::nowMs;
using gantry::testing::indexTrees;
using gantry::testing::storeRowsOneByOne;
using gantry::testing::TempStore;

namespace {

/// Steps until nothing is left; returns the number of steps that had work.
int compactFully(MemoryIndexCompaction& compaction) {
  int steps = 0;
  while (true) {
    auto more = compaction.step();
    REQUIRE(more.isOk());
    if (!more.value()) return steps;
    REQUIRE(++steps < 10000);
  }
}

/// The ids recalled for query, best first.
std::vector<int64_t> recalled(MemoryRepo& repo, const std::string& query) {
  auto rows = repo.search(query, 50);
  REQUIRE(rows.isOk());
  std::vector<int64_t> ids;
  for (const auto& row : rows.value()) ids.push_back(row.id);
  return ids;
}

}  // namespace

TEST_CASE("a memory index of many b-trees is merged into one and recalls the same rows",
          "[memory]") {
  TempStore temp;
  const auto ids = storeRowsOneByOne(temp.store(), 60);
  REQUIRE(indexTrees(temp.store()) > kMaxMemoryIndexTrees);
  MemoryRepo repo(temp.store());
  const auto before = recalled(repo, "row7 group3 shared");
  REQUIRE(before.size() > 1);

  MemoryIndexCompaction compaction(temp.store());
  CHECK(compactFully(compaction) >= 1);
  CHECK(indexTrees(temp.store()) == 1);
  CHECK(recalled(repo, "row7 group3 shared") == before);
  CHECK(recalled(repo, "row59") == std::vector<int64_t>{ids.back()});
  CHECK(gantry::store::checkFts(temp.store()).isOk());
}

TEST_CASE("a memory index of few b-trees is left as it is", "[memory]") {
  TempStore temp;
  storeRowsOneByOne(temp.store(), 2);
  const int64_t trees = indexTrees(temp.store());
  REQUIRE(trees <= kMaxMemoryIndexTrees);
  REQUIRE(trees > 1);
  MemoryIndexCompaction compaction(temp.store());
  CHECK(compactFully(compaction) == 0);
  CHECK(indexTrees(temp.store()) == trees);
}

TEST_CASE("b-trees added after a check that found few are still merged", "[memory]") {
  TempStore temp;
  storeRowsOneByOne(temp.store(), 2);
  MemoryIndexCompaction compaction(temp.store());
  CHECK(compactFully(compaction) == 0);  // few: the check remembers the index as it was
  CHECK(compactFully(compaction) == 0);

  storeRowsOneByOne(temp.store(), 10);
  REQUIRE(indexTrees(temp.store()) > kMaxMemoryIndexTrees);
  CHECK(compactFully(compaction) >= 1);
  CHECK(indexTrees(temp.store()) == 1);
}

TEST_CASE("rows stored while the memory index is being merged are kept and found", "[memory]") {
  TempStore temp;
  storeRowsOneByOne(temp.store(), 1500);
  MemoryIndexCompaction compaction(temp.store());
  auto first = compaction.step();
  REQUIRE(first.isOk());
  REQUIRE(first.value());
  REQUIRE(indexTrees(temp.store()) > 1);  // the merge is under way, not done

  MemoryRepo repo(temp.store());
  std::vector<int64_t> late;
  for (int i = 0; i < 8; ++i) {
    auto id = repo.insert(
        {"fact", "late arrival", "stored mid merge late" + std::to_string(i), "chat", 1.0, 0});
    REQUIRE(id.isOk());
    late.push_back(id.value());
    auto more = compaction.step();
    REQUIRE(more.isOk());
  }
  compactFully(compaction);
  CHECK(indexTrees(temp.store()) <= kMaxMemoryIndexTrees);
  for (std::size_t i = 0; i < late.size(); ++i) {
    CHECK(recalled(repo, "late" + std::to_string(i)) == std::vector<int64_t>{late[i]});
  }
  CHECK(recalled(repo, "row1499").size() == 1);
  CHECK(gantry::store::checkFts(temp.store()).isOk());
}
