#pragma once
/// /memstats and `gantry memstats`: memory rows by kind, active / expired / superseded,
/// unresolved conflicts with the persona, the consolidation backlog (active episodes not yet
/// consolidated) and the database's size on disk (gantry.db and its WAL).
///
///   gantry memstats rows:  kind  KIND  rows
///                          state  active|expired|superseded  rows
///                          conflicts  unresolved  rows
///                          consolidation  backlog  rows
///                          database  bytes  N

#include <ostream>
#include <string>
#include <vector>

#include "store/store.h"

namespace gantry::memory {

/// The /memstats reply.
std::string memStatsText(store::Store& store);

/// `gantry memstats`; args are the words after it (none). Returns 0, 1 on a store failure,
/// 2 on a usage error.
int memStatsCommand(store::Store& store, const std::vector<std::string>& args, std::ostream& out,
                    std::ostream& err);

}  // namespace gantry::memory
