#pragma once
/// When the owner's write-ahead log is copied back into the database. SQLite's own
/// checkpoint, every 1,000 pages of log, runs inside whichever commit crosses the mark, often
/// a turn's, whose reply then waits for the copy. Instead the log is checkpointed when a chat
/// goes idle, and by the commit that finds it at kWalPagesAtCommit (an instance that never goes
/// idle). Included by store/*.cpp only; used under the Store's lock.

struct sqlite3;

namespace gantry::store {

/// Checkpointed when a chat goes idle: SQLite's default mark.
inline constexpr int kWalPagesWhenIdle = 1000;
/// Checkpointed by the commit from here on: about 8 MiB of log at 4 KiB pages.
inline constexpr int kWalPagesAtCommit = 2000;

struct WalCheckpoints {
  int pages = 0;  ///< in the log after the last commit
};

/// Replaces SQLite's automatic checkpoint of db's log with the one described above.
void deferCheckpoints(sqlite3* db, WalCheckpoints& state);
/// Checkpoints db's log (PASSIVE: never waits for readers or writers) when it holds
/// kWalPagesWhenIdle pages or more. True when it did.
bool checkpointIfDue(sqlite3* db, WalCheckpoints& state);

}  // namespace gantry::store
