#include "store/wal_checkpoints.h"

#include <sqlite3.h>

namespace gantry::store {
namespace {

// Copies what it can of the log into the database; a reader still on older pages keeps
// them, and the next checkpoint copies the rest.
void checkpoint(sqlite3* db, WalCheckpoints& state) {
  int in_log = 0, copied = 0;
  if (sqlite3_wal_checkpoint_v2(db, nullptr, SQLITE_CHECKPOINT_PASSIVE, &in_log, &copied) ==
          SQLITE_OK &&
      copied == in_log) {
    state.pages = 0;  // the next commit starts the log over
  }
}

int afterCommit(void* context, sqlite3* db, const char* /*schema*/, int pages) {
  auto& state = *static_cast<WalCheckpoints*>(context);
  state.pages = pages;
  if (pages >= kWalPagesAtCommit) checkpoint(db, state);
  return SQLITE_OK;  // a checkpoint that fails does not fail the commit
}

}  // namespace

void deferCheckpoints(sqlite3* db, WalCheckpoints& state) {
  sqlite3_wal_hook(db, afterCommit, &state);
}

bool checkpointIfDue(sqlite3* db, WalCheckpoints& state) {
  if (state.pages < kWalPagesWhenIdle) return false;
  checkpoint(db, state);
  return true;
}

}  // namespace gantry::store
