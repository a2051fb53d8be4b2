#include "store/pending_writes.h"

#include <utility>

#include "store/db.h"

namespace gantry::store {

void writePending(Db& db) {
  writeUsage(db, db.pending.usage);
  writeDeliveries(db, db.pending.deliveries);
}

void flushPending(Db& db) {
  if (db.pending.empty()) return;
  PendingWrites writes = std::exchange(db.pending, {});  // so that commit() does not carry them
  try {
    Transaction transaction(db);
    writeUsage(db, writes.usage);
    writeDeliveries(db, writes.deliveries);
    transaction.commit();
  } catch (...) {
    writes.usage.insert(writes.usage.end(), db.pending.usage.begin(), db.pending.usage.end());
    writes.deliveries.insert(writes.deliveries.end(), db.pending.deliveries.begin(),
                             db.pending.deliveries.end());
    db.pending = std::move(writes);
    throw;
  }
}

}  // namespace gantry::store
