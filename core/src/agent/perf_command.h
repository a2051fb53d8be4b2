#pragma once
/// /perf and `gantry perf`: the last turns' costs (DESIGN 4.3) from the turns table.
///
///   gantry perf rows:  started (UTC ISO 8601)  chat  outcome  model_ms  first_token_ms
///                      tool_ms  total_ms  rounds  tool_calls  prompt_tokens
///   (first_token_ms -1: the call was not streamed; prompt_tokens 0: none reported)

#include <ostream>
#include <string>
#include <vector>

#include "store/store.h"

namespace gantry::agent {

/// How many turns /perf and `gantry perf` show.
inline constexpr int kPerfTurns = 10;

/// The /perf reply: the last kPerfTurns turns, newest first.
std::string perfText(store::Store& store);

/// `gantry perf`; args are the words after it (none). Rows to out, errors to err. Returns
/// 0, 1 on a store failure, 2 on a usage error.
int perfCommand(store::Store& store, const std::vector<std::string>& args, std::ostream& out,
                std::ostream& err);

}  // namespace gantry::agent
