#include <sqlite3.h>

#include "store/db.h"

namespace gantry::store {

void Transaction::commit() {
  const bool carries =
      !db_.pending.empty() && sqlite3_txn_state(db_.prepared.db(), nullptr) == SQLITE_TXN_WRITE;
  if (carries) writePending(db_, db_.pending);  // an error leaves them pending
  Query(db_.prepared, "COMMIT").run();
  if (carries) db_.pending = {};
  done_ = true;
}

}  // namespace gantry::store
