// The owner's write-ahead log is checkpointed when the process goes idle, not by whichever
// commit crosses SQLite's mark (store/wal_checkpoints.h). What the log holds is read from a
// second connection: PRAGMA wal_checkpoint(PASSIVE) reports the frames in the log.
#include "store/wal_checkpoints.h"

#include <sqlite3.h>

#include <catch2/catch.hpp>
#include <filesystem>

#include "store/message_repo.h"
#include "unit/memory/temp_store.h"
#include "unit/support/chat_message.h"

namespace fs = std::filesystem;
using namespace gantry;
using gantry::testing::message;

namespace {

/// The frames in the log, as a checkpoint from another connection counts them (and copies
/// what it can, as any checkpoint does).
int framesInLog(const std::string& path) {
  sqlite3* db = nullptr;
  REQUIRE(sqlite3_open(path.c_str(), &db) == SQLITE_OK);
  // A first read opens the log (before it, the connection reports no log at all).
  REQUIRE(sqlite3_exec(db, "SELECT COUNT(*) FROM sqlite_schema", nullptr, nullptr, nullptr) ==
          SQLITE_OK);
  int in_log = -1, copied = -1;
  REQUIRE(sqlite3_wal_checkpoint_v2(db, nullptr, SQLITE_CHECKPOINT_PASSIVE, &in_log, &copied) ==
          SQLITE_OK);
  sqlite3_close(db);
  return in_log;
}

/// Commits count messages of a few pages each (about 5 frames of log each).
void append(store::Store& store, int count) {
  store::MessageRepo repo(store);
  const int64_t session = repo.session("c").value();
  const std::string text(6000, 'x');
  for (int i = 0; i < count; ++i) {
    REQUIRE(repo.append(session, message(Role::kUser, text)).isOk());
  }
}

/// The pages the log file has room for: it is reused from its start after a checkpoint, so
/// it only grows past what was written since the last one.
std::uintmax_t logFilePages(const std::string& path) {
  return fs::file_size(path + "-wal") / 4120;  // a frame: 4096 bytes and a 24-byte header
}

}  // namespace

TEST_CASE("the owner's log grows past SQLite's mark until the process goes idle", "[store]") {
  testing::TempStore temp;
  store::Store& store = temp.store();
  const std::string path = store.path();
  append(store, 300);
  CHECK(logFilePages(path) > store::kWalPagesWhenIdle + 100);  // SQLite would have restarted it
  CHECK(store.checkpointIfDue());
  CHECK_FALSE(store.checkpointIfDue());  // nothing new since
  append(store, 1);                      // starts the log over
  CHECK(framesInLog(path) < 10);
}

TEST_CASE("a log that reaches the commit mark is checkpointed by the commit", "[store]") {
  testing::TempStore temp;
  const std::string path = temp.store().path();
  append(temp.store(), 600);
  const auto pages = logFilePages(path);
  CHECK(pages > store::kWalPagesWhenIdle + 100);
  CHECK(pages < store::kWalPagesAtCommit + 10);
  CHECK(static_cast<std::uintmax_t>(framesInLog(path)) < pages);  // started over at the mark
}

TEST_CASE("an operator's connection keeps SQLite's own checkpoints", "[store]") {
  testing::TempStore temp;  // the owner, idle
  const std::string path = temp.store().path();
  auto opened = store::Store::open(path, store::Access::kNoSchema);
  REQUIRE(opened.isOk());
  append(*opened.value(), 300);
  CHECK(logFilePages(path) < store::kWalPagesWhenIdle + 10);
  CHECK_FALSE(opened.value()->checkpointIfDue());
}
