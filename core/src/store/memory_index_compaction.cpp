#include "store/memory_index_compaction.h"

#include <sqlite3.h>

#include "store/db.h"

namespace gantry::store {
namespace {

// Pages of merged index written a step: 3-9 ms a step at 10,000 rows.
constexpr int64_t kPagesPerStep = 16;

// The index's b-trees, from its %_idx table (one or more rows per b-tree).
int64_t treeCount(Db& db) {
  Query count(db.prepared, "SELECT COUNT(DISTINCT segid) FROM memory_fts_idx");
  return count.step() ? count.integer(0) : 0;
}

// One 'merge' command: a negative page count starts merging every b-tree into one, a
// positive one continues a merge under way. True when it did any work; FTS5 documents that
// as a rise of two or more in the connection's total changes.
bool merge(Db& db, int64_t pages) {
  sqlite3* handle = db.prepared.db();
  const sqlite3_int64 before = sqlite3_total_changes64(handle);
  Query(db.prepared, "INSERT INTO memory_fts(memory_fts, rank) VALUES ('merge', ?)")
      .bind(pages)
      .run();
  return sqlite3_total_changes64(handle) - before >= 2;
}

}  // namespace

Result<int64_t> memoryIndexTrees(Store& store) {
  return locked(store, "memory", "index b-trees",
                [&](Poco::Data::Session&) -> Result<int64_t> { return treeCount(store.db()); });
}

Result<bool> MemoryIndexCompaction::step() {
  return locked(store_, "memory", "index compaction", [&](Poco::Data::Session&) -> Result<bool> {
    Db& db = store_.db();
    if (!merging_ && treeCount(db) <= kMaxMemoryIndexTrees) return false;
    merging_ = merge(db, merging_ ? kPagesPerStep : -kPagesPerStep);
    return merging_;
  });
}

}  // namespace gantry::store
