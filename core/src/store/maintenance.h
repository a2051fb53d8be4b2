#pragma once
/// Operator maintenance of the store (`gantry doctor`): the full-text indexes.

#include "store/store.h"

namespace gantry::store {

/// Checks that memory_fts and messages_fts agree with their tables; an error names the
/// index that does not.
Status checkFts(Store& store);
/// Rebuilds both full-text indexes from their tables.
Status rebuildFts(Store& store);

/// What one retention pass removed.
struct Pruned {
  int64_t messages = 0, tool_calls = 0, usage = 0, inbox = 0, outbox = 0, turns = 0, approvals = 0;
  int64_t repairs = 0;
};

/// RECORD_KEEP_DAYS: deletes the record older than cutoff_ms — messages no longer in any
/// chat's history (so the bounded history, every chat's last turns, always stays) with their
/// tool calls, usage, turn and repair rows, handled inbox and outbox rows, and approvals that
/// expired before it (long decided or dead). One transaction.
Result<Pruned> pruneRecord(Store& store, int64_t cutoff_ms);

}  // namespace gantry::store
