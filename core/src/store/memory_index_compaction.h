#pragma once
/// Keeps the memory table's full-text index in few b-trees, in bounded steps taken while the
/// chats are idle.

#include <string>

#include "store/store.h"

namespace gantry::store {

struct Db;

/// Above this many b-trees the memory index is merged into one.
inline constexpr int kMaxMemoryIndexTrees = 4;

/// The b-trees of the memory table's full-text index.
Result<int64_t> memoryIndexTrees(Store& store);

/// FTS5 writes each transaction that changes an index as a new b-tree, and a recall seeks
/// every b-tree for each of its words: 10,000 rows stored one at a time left 11, on which a
/// recall's queries took 2-3 times as long as on one. Once there are more than
/// kMaxMemoryIndexTrees, they are merged into one by FTS5's incremental 'merge' command, a
/// few pages a step, so a message arriving waits for one step at most.
class MemoryIndexCompaction {
 public:
  explicit MemoryIndexCompaction(Store& store) : store_(store) {}

  /// One step of merging, when the index has too many b-trees or a merge is under way. True
  /// when the step did work: the next one may have more to do.
  Result<bool> step();

 private:
  bool tooManyTrees(Db& db);

  Store& store_;
  // Guarded by the store's mutex:
  bool merging_ = false;      ///< a merge is under way
  std::string few_trees_at_;  ///< the structure record when there were few b-trees last
};

}  // namespace gantry::store
