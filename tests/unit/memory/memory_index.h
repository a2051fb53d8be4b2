#pragma once
// A store whose memory index has many b-trees, for the compaction tests.

#include <catch2/catch.hpp>
#include <string>
#include <vector>

#include "store/memory_index_compaction.h"
#include "store/memory_repo.h"

namespace gantry::testing {

/// The memory index's b-trees (a failed count fails the test).
inline int64_t indexTrees(store::Store& store) {
  auto trees = store::memoryIndexTrees(store);
  REQUIRE(trees.isOk());
  return trees.value();
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
