#include "store/message_index.h"

#include <algorithm>
#include <utility>

#include "store/db.h"

namespace gantry::store {
namespace {

// The last message indexed and the newest recorded; equal when the index is up to date.
std::pair<int64_t, int64_t> progress(Db& db) {
  Query select(db.prepared,
               "SELECT (SELECT indexed_to FROM messages_fts_progress), "
               "(SELECT IFNULL(MAX(id), 0) FROM messages)");
  if (!select.step()) return {0, 0};
  return {select.integer(0), select.integer(1)};
}

}  // namespace

// messages_fts indexes message_text, which shows the messages up to indexed_to (migration
// kV10): the rows indexed and the mark move in one transaction, so the index always matches
// its content.
Result<bool> MessageIndex::step() {
  return locked(store_, "store", "message index", [&](Poco::Data::Session&) -> Result<bool> {
    Db& db = store_.db();
    // Read first outside a transaction: an index up to date takes no lock.
    if (auto [indexed, newest] = progress(db); indexed >= newest) return false;
    Transaction transaction(db);
    const int64_t from = progress(db).first;
    int64_t to = from, taken = 0;
    {
      Query next(db.prepared,
                 "SELECT IFNULL(MAX(id), 0), COUNT(*) FROM (SELECT id FROM messages WHERE id > ? "
                 "ORDER BY id LIMIT ?)");
      next.bind(from).bind(kMessagesPerStep);
      if (next.step()) {
        to = std::max(from, next.integer(0));
        taken = next.integer(1);
      }
    }
    Query(db.prepared,
          "INSERT INTO messages_fts(rowid, content) SELECT id, substr(content, context_chars + 1) "
          "FROM messages WHERE id > ? AND id <= ? AND role IN ('user','assistant') ORDER BY id")
        .bind(from)
        .bind(to)
        .run();
    Query(db.prepared, "UPDATE messages_fts_progress SET indexed_to = ?").bind(to).run();
    transaction.commit();
    return taken == kMessagesPerStep;
  });
}

Status MessageIndex::catchUp() {
  while (true) {
    auto more = step();
    if (!more.isOk()) return more.status();
    if (!more.value()) return Status::ok();
  }
}

}  // namespace gantry::store
