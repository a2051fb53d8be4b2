#include "store/wal_checkpoints.h"

#include <sqlite3.h>

namespace gantry::store {
namespace {

// Copies what it can of the log into the database; a reader still on older pages keeps
// them, and the next checkpoint copies the rest. SQLITE_BUSY: the copier is at it.
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
  switch (afterCommitStep(pages, state.copy_asked_at)) {
    case AfterCommit::kNothing: break;
    case AfterCommit::kAskCopier: state.copier->request(); break;
    case AfterCommit::kCopyHere: checkpoint(db, state); break;
  }
  return SQLITE_OK;  // a checkpoint that fails does not fail the commit
}

}  // namespace

AfterCommit afterCommitStep(int pages, int& copy_asked_at) {
  if (pages < copy_asked_at) copy_asked_at = 0;  // the log started over
  if (pages >= kWalPagesCopiedByCommit) return AfterCommit::kCopyHere;
  if (pages < kWalPagesAtCommit || pages < copy_asked_at + kWalPagesBetweenCopies) {
    return AfterCommit::kNothing;
  }
  copy_asked_at = pages;
  return AfterCommit::kAskCopier;
}

void deferCheckpoints(sqlite3* db, WalCheckpoints& state) {
  state.copier = std::make_unique<LogCopier>(sqlite3_db_filename(db, "main"));
  sqlite3_wal_hook(db, afterCommit, &state);
}

bool checkpointIfDue(sqlite3* db, WalCheckpoints& state) {
  // A copy still under way ends first: an idle instance keeps no thread, connection or
  // allocation of it.
  state.copier->finish();
  if (state.pages < kWalPagesWhenIdle) return false;
  checkpoint(db, state);
  return true;
}

}  // namespace gantry::store
