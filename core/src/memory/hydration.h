#pragma once
/// Hydration (DESIGN 6): the compact `[memory]` block placed in the volatile tail of the
/// prompt at session start and on recall.

#include <cstdint>
#include <set>
#include <string>
#include <string_view>

#include "store/memory_repo.h"

namespace gantry::memory {

/// At most max_rows active rows — facts, preferences and persons, plus FTS5 hits (any kind)
/// for current_message — ranked by relevance + recency + kind, rendered as
/// "[memory]\n- (person) mom: prefers calls over texts\n…" (one row per line, ending in a
/// newline). Rows whose id is in withheld (they contradict the persona,
/// memory/persona_conflicts.h) are left out. Returns "" when nothing qualifies or the store
/// fails (the failure is logged; a turn never fails for want of memory). Thread-safe as
/// MemoryRepo is.
std::string hydrationBlock(store::MemoryRepo& repo, std::string_view current_message,
                           int max_rows = 30, const std::set<int64_t>& withheld = {});

}  // namespace gantry::memory
