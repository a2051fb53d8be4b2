#pragma once
/// When the owner's write-ahead log is copied back into the database. SQLite's own
/// checkpoint, every 1,000 pages of log, runs inside whichever commit crosses the mark: in
/// bench_host a turn's, about one in thirty, whose reply then waited for ~1,000 page writes and
/// two fsyncs. Instead the log is checkpointed when a chat goes idle, and once it reaches
/// kWalPagesAtCommit (an instance that never goes idle) by a LogCopier, off the committing
/// thread (store/log_copier.h). A copier cannot catch up with an owner that commits without
/// pause, so from kWalPagesCopiedByCommit on a commit copies what is left itself. Included by
/// store/*.cpp only; used under the Store's lock.

#include <memory>

#include "store/log_copier.h"

struct sqlite3;

namespace gantry::store {

/// Checkpointed when a chat goes idle: SQLite's default mark.
inline constexpr int kWalPagesWhenIdle = 1000;
/// Copied off the committing thread from here on: about 8 MiB of log at 4 KiB pages.
inline constexpr int kWalPagesAtCommit = 2000;
/// While the log stays past the mark (a reader in another process keeps older pages), a copy
/// is asked for again each time it has grown by this much, not at every commit.
inline constexpr int kWalPagesBetweenCopies = 500;
/// The commit copies the rest of the log itself (PASSIVE) from here on, so that the log starts
/// over below 4,096 pages, one block of wal-index (1,000 piped bench_vs_floor turns: the log
/// at most 14-26 MB without this, 8.3 MB when every copy was the commit's).
inline constexpr int kWalPagesCopiedByCommit = 3500;

struct WalCheckpoints {
  int pages = 0;  ///< in the log after the last commit
  /// The log's pages when a copy was last asked for; 0 once the log has started over.
  int copy_asked_at = 0;
  std::unique_ptr<LogCopier> copier;  ///< set by deferCheckpoints
};

/// What a commit that left pages in the log does about it.
enum class AfterCommit { kNothing, kAskCopier, kCopyHere };
/// The step for pages; copy_asked_at (WalCheckpoints') is updated with it.
AfterCommit afterCommitStep(int pages, int& copy_asked_at);

/// Replaces SQLite's automatic checkpoint of db's log with the one described above.
void deferCheckpoints(sqlite3* db, WalCheckpoints& state);
/// Checkpoints db's log (PASSIVE: never waits for readers or writers) when it holds
/// kWalPagesWhenIdle pages or more. True when it did.
bool checkpointIfDue(sqlite3* db, WalCheckpoints& state);

}  // namespace gantry::store
