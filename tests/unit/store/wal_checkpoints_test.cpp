// The owner's write-ahead log is checkpointed when the process goes idle, not by whichever
// commit crosses SQLite's mark, and past a mark of its own by the commit
// (store/wal_checkpoints.h). What the log holds is read from a second
// connection (PRAGMA wal_checkpoint(PASSIVE) reports the frames in the log), or from the
// wal-index without a checkpoint.
#include "store/wal_checkpoints.h"

#include <sqlite3.h>

#include <catch2/catch.hpp>
#include <cstdint>
#include <cstring>
#include <filesystem>
#include <fstream>

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

/// The log's frames and how many of them a checkpoint has copied into the database, read from
/// the wal-index (sqlite.org/walformat.html: the header's mxFrame at byte 16, the checkpoint
/// info's nBackfill at byte 96, in the machine's byte order), which no checkpoint then changes.
struct WalIndex {
  std::uint32_t frames = 0;
  std::uint32_t copied = 0;
};

WalIndex walIndex(const std::string& path) {
  std::ifstream shm(path + "-shm", std::ios::binary);
  char header[100] = {};
  REQUIRE(shm.read(header, sizeof header));
  WalIndex index;
  std::memcpy(&index.frames, header + 16, sizeof index.frames);
  std::memcpy(&index.copied, header + 96, sizeof index.copied);
  return index;
}

/// Commits messages until the log holds at least frames frames (it must not start over
/// meanwhile: the test keeps it from doing so).
void appendUntil(store::Store& store, std::uint32_t frames) {
  while (walIndex(store.path()).frames < frames) append(store, 10);
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

TEST_CASE("below the commit mark nothing copies the owner's log", "[store]") {
  testing::TempStore temp;
  store::Store& store = temp.store();
  append(store, 300);  // ~1,500 frames
  REQUIRE(walIndex(store.path()).frames > store::kWalPagesWhenIdle);
  CHECK(walIndex(store.path()).copied == 0);
}

TEST_CASE("the commit that finds the log past the commit mark copies it back", "[store]") {
  testing::TempStore temp;
  store::Store& store = temp.store();
  const std::string path = store.path();
  // One message at a time until the log starts over: the commit after the copy starts it.
  std::uint32_t most = 0;
  for (int i = 0; i < 1000; ++i) {
    append(store, 1);
    const std::uint32_t frames = walIndex(path).frames;
    if (frames < most) break;
    most = frames;
  }
  CHECK(most >= static_cast<std::uint32_t>(store::kWalPagesAtCommit));
  CHECK(most < static_cast<std::uint32_t>(store::kWalPagesAtCommit) + 20);
}

TEST_CASE("a reader on older pages keeps them from the copy until a later one", "[store]") {
  testing::TempStore temp;
  store::Store& store = temp.store();
  const std::string path = store.path();
  append(store, 1);
  sqlite3* reader = nullptr;
  REQUIRE(sqlite3_open(path.c_str(), &reader) == SQLITE_OK);
  REQUIRE(sqlite3_exec(reader, "BEGIN; SELECT COUNT(*) FROM messages", nullptr, nullptr, nullptr) ==
          SQLITE_OK);
  const std::uint32_t seen = walIndex(path).frames;
  appendUntil(store, store::kWalPagesAtCommit + 50);  // past the mark, the reader on old pages
  CHECK(walIndex(path).copied <= seen);
  REQUIRE(sqlite3_exec(reader, "COMMIT", nullptr, nullptr, nullptr) == SQLITE_OK);
  sqlite3_close(reader);
  append(store, 1);  // the next commit past the mark copies the rest
  const WalIndex after = walIndex(path);
  CHECK(after.copied > seen);
  CHECK(after.copied == after.frames);
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
