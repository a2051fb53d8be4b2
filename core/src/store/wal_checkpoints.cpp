#include "store/wal_checkpoints.h"

#include <sqlite3.h>

namespace gantry::store {
namespace {

int afterCommit(void* context, sqlite3* /*db*/, const char* /*schema*/, int pages) {
  auto& state = *static_cast<WalCheckpoints*>(context);
  state.pages = pages;
  if (pages < state.copy_asked_at) state.copy_asked_at = 0;  // the log started over
  if (pages >= kWalPagesAtCommit && pages >= state.copy_asked_at + kWalPagesBetweenCopies) {
    state.copy_asked_at = pages;
    state.copier->request();
  }
  return SQLITE_OK;
}

}  // namespace

void deferCheckpoints(sqlite3* db, WalCheckpoints& state) {
  state.copier = std::make_unique<LogCopier>(sqlite3_db_filename(db, "main"));
  sqlite3_wal_hook(db, afterCommit, &state);
}

bool checkpointIfDue(sqlite3* db, WalCheckpoints& state) {
  // A copy still under way ends first: an idle instance keeps no thread, connection or
  // allocation of it.
  state.copier->finish();
  if (state.pages < kWalPagesWhenIdle) return false;
  // What it cannot copy (a reader still on older pages keeps them), the next one does.
  int in_log = 0, copied = 0;
  if (sqlite3_wal_checkpoint_v2(db, nullptr, SQLITE_CHECKPOINT_PASSIVE, &in_log, &copied) ==
          SQLITE_OK &&
      copied == in_log) {
    state.pages = 0;  // the next commit starts the log over
  }
  return true;
}

}  // namespace gantry::store
