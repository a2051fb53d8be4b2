#include "store/log_copier.h"

#include <sqlite3.h>

#include "log/log.h"

namespace gantry::store {
namespace {

// PASSIVE checkpoints through a connection opened for them, so that none waits for the
// owner's transactions and nothing stays in memory between copies (one is due every ~2,000
// pages of log). A checkpoint copies the log as it was when it began, and the owner starts the
// log over only once all of it is copied: while the owner keeps committing, each round copies
// what was added during the one before, until a round gains nothing (all copied, or a reader
// in another process keeps older pages: a later request tries again).
void copyLog(const std::string& path) {
  sqlite3* db = nullptr;
  int rc = sqlite3_open_v2(path.c_str(), &db, SQLITE_OPEN_READWRITE, nullptr);
  // A connection finds the log at its first read; the header's cookie is read without the
  // schema.
  if (rc == SQLITE_OK) rc = sqlite3_exec(db, "PRAGMA schema_version", nullptr, nullptr, nullptr);
  for (int copied_before = -1; rc == SQLITE_OK;) {
    int in_log = 0, copied = 0;
    rc = sqlite3_wal_checkpoint_v2(db, nullptr, SQLITE_CHECKPOINT_PASSIVE, &in_log, &copied);
    if (copied == copied_before) break;
    copied_before = copied;
  }
  // SQLITE_BUSY: another checkpoint was under way (the owner's, at idle); it copies the log.
  if (rc != SQLITE_OK && rc != SQLITE_BUSY) {
    log::warn("wal_copy_failed",
              {{"path", path}, {"error", db != nullptr ? sqlite3_errmsg(db) : sqlite3_errstr(rc)}});
  }
  sqlite3_close(db);
}

}  // namespace

LogCopier::~LogCopier() {
  {
    std::lock_guard lock(mutex_);
    stop_ = true;
  }
  finish();
}

void LogCopier::finish() {
  std::thread ending;
  {
    std::lock_guard lock(mutex_);
    ending.swap(thread_);
  }
  if (ending.joinable()) ending.join();
}

void LogCopier::request() {
  std::lock_guard lock(mutex_);
  if (copying_) {
    requested_ = true;  // the thread copies once more before it ends
    return;
  }
  if (thread_.joinable()) thread_.join();  // ended: it cleared copying_ as its last step
  copying_ = true;
  thread_ = std::thread([this] { run(); });
}

bool LogCopier::busy() {
  std::lock_guard lock(mutex_);
  return copying_;
}

// A thread a copy: ended, it gives its stack's pages and its malloc cache back (a thread kept
// waiting kept them dirty in every instance that ever had a long run of messages).
void LogCopier::run() {
  std::unique_lock lock(mutex_);
  do {
    requested_ = false;
    lock.unlock();
    copyLog(path_);
    lock.lock();
  } while (requested_ && !stop_);
  copying_ = false;
}

}  // namespace gantry::store
