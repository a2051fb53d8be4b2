#pragma once
/// When the owner's write-ahead log is copied back into the database. SQLite's own
/// checkpoint, every 1,000 pages of log, runs inside whichever commit crosses the mark: in
/// bench_host a turn's, about one in thirty, whose reply then waited for ~1,000 page writes and
/// two fsyncs. Instead the log is checkpointed when a chat goes idle, and at a commit only once
/// it reaches kWalPagesAtCommit (an instance that never goes idle). Included by store/*.cpp
/// only; used under the Store's lock.

struct sqlite3;

namespace gantry::store {

/// Checkpointed when a chat goes idle: SQLite's default mark.
inline constexpr int kWalPagesWhenIdle = 1000;
/// Checkpointed at the commit that reaches it: 16 MiB of log at 4 KiB pages.
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
