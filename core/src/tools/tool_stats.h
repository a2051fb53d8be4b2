#pragma once
/// /toolstats and `gantry toolstats`: per tool over the record — calls, ok, errors, mean and
/// max ms, result chars (before truncation) — and how often the host repaired what a model
/// sent (DESIGN 4.1).
///
///   gantry toolstats rows:  tool  NAME  calls  ok  errors  mean_ms  max_ms  result_chars
///                           repair  KIND  count   (every kind, zero included)

#include <ostream>
#include <string>
#include <vector>

#include "store/store.h"

namespace gantry::tools {

/// The /toolstats reply.
std::string toolStatsText(store::Store& store);

/// `gantry toolstats`; args are the words after it (none). Returns 0, 1 on a store failure,
/// 2 on a usage error.
int toolStatsCommand(store::Store& store, const std::vector<std::string>& args, std::ostream& out,
                     std::ostream& err);

}  // namespace gantry::tools
