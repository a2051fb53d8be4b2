#pragma once
// The memory index's b-trees, and a store whose index has many, for the compaction tests.

#include <catch2/catch.hpp>
#include <mutex>
#include <string>

#include "store/db.h"
#include "store/memory_repo.h"

namespace gantry::testing {

/// The b-trees of the memory table's full-text index (its %_idx table names each).
inline int64_t memoryIndexTrees(store::Store& store) {
  std::lock_guard lock(store.mutex());
  store::Query count(store.db().prepared, "SELECT COUNT(DISTINCT segid) FROM memory_fts_idx");
  return count.step() ? count.integer(0) : 0;
}

/// Stores rows one transaction each, as the memory tools do, each with the word "row<i>",
/// words shared with other rows and thirty of its own (so the index grows as with real text);
/// returns their ids in order.
inline std::vector<int64_t> storeRowsOneByOne(store::Store& store, int rows) {
  store::MemoryRepo repo(store);
  std::vector<int64_t> ids;
  for (int i = 0; i < rows; ++i) {
    const std::string unique = "row" + std::to_string(i);
    std::string content = "shared words of " + unique + " group" + std::to_string(i % 7);
    for (int word = 0; word < 30; ++word) content += " w" + std::to_string(i * 30 + word);
    auto id = repo.insert({"fact", unique + " subject", content, "chat", 1.0, 0});
    REQUIRE(id.isOk());
    ids.push_back(id.value());
  }
  return ids;
}

}  // namespace gantry::testing
