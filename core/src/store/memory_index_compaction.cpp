#include "store/memory_index_compaction.h"

#include <sqlite3.h>

#include "store/db.h"

namespace gantry::store {
namespace {

// Pages of merged index written a step: 3-9 ms a step at 10,000 rows.
constexpr int64_t kPagesPerStep = 16;

// FTS5's structure record (the row of its %_data table with id 10), which lists the index's
// b-trees and changes with every write to the index.
std::string structure(Db& db) {
  Query select(db.prepared, "SELECT block FROM memory_fts_data WHERE id = 10");
  return select.step() ? select.text(0) : std::string();
}

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
    if (!merging_ && !tooManyTrees(db)) return false;
    merging_ = merge(db, merging_ ? kPagesPerStep : -kPagesPerStep);
    return merging_;
  });
}

// Counting the b-trees reads the whole %_idx table, each time a chat goes idle (80K
// instructions at 10,000 rows, about 10 times that at 100,000); an unchanged structure record
// means an unchanged count.
bool MemoryIndexCompaction::tooManyTrees(Db& db) {
  std::string now = structure(db);
  if (!now.empty() && now == few_trees_at_) return false;
  if (treeCount(db) > kMaxMemoryIndexTrees) return true;
  few_trees_at_ = std::move(now);
  return false;
}

}  // namespace gantry::store
