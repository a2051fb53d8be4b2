#include "store/pending_writes.h"

#include <utility>

#include "store/db.h"

namespace gantry::store {

void PendingWrites::append(PendingWrites&& later) {
  usage.insert(usage.end(), later.usage.begin(), later.usage.end());
  deliveries.insert(deliveries.end(), later.deliveries.begin(), later.deliveries.end());
}

void writePending(Db& db, const PendingWrites& writes) {
  writeUsage(db, writes.usage);
  writeDeliveries(db, writes.deliveries);
}

void flushPending(Db& db) {
  if (db.pending.empty()) return;
  PendingWrites writes = std::exchange(db.pending, {});  // so that commit() does not carry them
  try {
    Transaction transaction(db);
    writePending(db, writes);
    transaction.commit();
  } catch (...) {
    writes.append(std::exchange(db.pending, {}));
    db.pending = std::move(writes);
    throw;
  }
}

void flushIfDue(Db& db, Access access) {
  if (access != Access::kOwner || db.pending.full()) flushPending(db);
}

}  // namespace gantry::store
