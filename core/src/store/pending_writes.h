#pragma once
/// What the database's owner writes with its next write transaction instead of in one of its
/// own: a model call's usage row (UsageRepo::record) and an outbox row's done mark
/// (OutboxRepo::markDone). Each came right after a commit on the turn's path and cost a
/// commit of its own (bench_host: 5% of a turn for the usage row, 2% for the mark).
/// Transaction::commit carries them; Store::flush() and the store's close write what is
/// left. A process killed in between loses them: a usage row is then missing, and a reply
/// whose done mark was lost is sent again at the next start, marked as a possible repeat.

#include <cstddef>
#include <vector>

#include "store/outbox_repo.h"
#include "store/store.h"
#include "store/usage_repo.h"

namespace gantry::store {

struct Db;

struct PendingWrites {
  /// Waiting in either list, they are written at once (a process that never goes idle).
  static constexpr std::size_t kMax = 64;
  std::vector<PendingUsage> usage;
  std::vector<PendingDelivery> deliveries;
  bool empty() const { return usage.empty() && deliveries.empty(); }
  bool full() const { return usage.size() >= kMax || deliveries.size() >= kMax; }
  /// Appends what later holds, after what this holds.
  void append(PendingWrites&& later);
};

/// Writes writes in the open write transaction. Called by Transaction::commit with db.pending.
void writePending(Db& db, const PendingWrites& writes);

/// Writes db.pending in a transaction of its own, if anything waits; on an error it stays
/// pending and the error is thrown.
void flushPending(Db& db);

/// After a repository added to db.pending: writes it at once unless the store is its owner
/// and fewer than PendingWrites::kMax wait.
void flushIfDue(Db& db, Access access);

/// Each repository's part of writePending, in the open transaction.
void writeUsage(Db& db, const std::vector<PendingUsage>& calls);
void writeDeliveries(Db& db, const std::vector<PendingDelivery>& marks);

}  // namespace gantry::store
