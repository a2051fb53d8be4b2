#pragma once
// The recalls tests compare with: a recall's hits in the order it finds them, and the
// candidates it ranks read without the facts it keeps.

#include <catch2/catch.hpp>
#include <string_view>
#include <vector>

#include "store/memory_repo.h"

namespace gantry::testing {

/// The first `limit` active hits for query, best match first (ties: the newer row): a recall
/// scoring by relevance alone keeps them in the order it finds them.
inline Result<std::vector<store::MemoryRow>> matchActive(
    store::MemoryRepo& repo, std::string_view query, int limit, int64_t now_ms,
    store::MatchMode mode = store::MatchMode::kAnyWord) {
  return repo.bestActive(
      query, limit, limit, now_ms, [](const store::MemoryRow& row) { return row.relevance; }, mode);
}

/// The same for informative words, each row read whole: the operator's search (which uses no
/// row's kept facts) with the inactive rows left out.
inline std::vector<store::MemoryRow> firstActiveHits(store::MemoryRepo& repo,
                                                     std::string_view query, int limit,
                                                     int64_t now_ms) {
  auto every = repo.search(query, 1 << 20);
  REQUIRE(every.isOk());
  std::vector<store::MemoryRow> rows;
  for (auto& row : every.value()) {
    if (row.active(now_ms) && rows.size() < static_cast<std::size_t>(limit)) {
      rows.push_back(std::move(row));
    }
  }
  return rows;
}

}  // namespace gantry::testing
