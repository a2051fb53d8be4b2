#include "memory/hydration.h"

#include <algorithm>
#include <set>

#include "log/log.h"
#include "memory/ranking.h"

namespace gantry::memory {
namespace {

const std::vector<std::string> kDurableKinds = {"fact", "preference", "person"};

// Adds the rows of batch not in rows yet (a hit keeps its relevance).
void add(Result<std::vector<store::MemoryRow>> batch, std::vector<store::MemoryRow>& rows,
         std::set<int64_t>& seen) {
  if (!batch.isOk()) {
    log::warn("memory: hydration query failed", {{"error", batch.status().message()}});
    return;
  }
  for (auto& row : batch.value()) {
    if (seen.insert(row.id).second) rows.push_back(std::move(row));
  }
}

// The best max_rows of the first 2 * max_rows FTS hits for the message, and active durable
// rows, each row once: what ranking all of them would keep. A durable row that is not a hit
// has no relevance, so it cannot outrank max_rows hits that score above what recency alone
// gives: the durable rows are not read then.
std::vector<store::MemoryRow> candidates(store::MemoryRepo& repo, std::string_view message,
                                         int max_rows, int64_t now_ms) {
  std::vector<store::MemoryRow> rows;
  std::set<int64_t> seen;
  add(repo.bestActive(message, max_rows * 2, max_rows, now_ms,
                      [now_ms](const store::MemoryRow& row) { return score(row, now_ms); }),
      rows, seen);
  const double ceiling = ceilingWithoutRelevance(kDurableKinds);
  auto outranking = std::count_if(rows.begin(), rows.end(), [&](const store::MemoryRow& row) {
    return score(row, now_ms) > ceiling;
  });
  if (outranking < max_rows) add(repo.active(kDurableKinds, max_rows * 2, now_ms), rows, seen);
  return rows;
}

}  // namespace

std::string hydrationBlock(store::MemoryRepo& repo, std::string_view current_message, int max_rows,
                           const std::set<int64_t>& withheld) {
  if (max_rows <= 0) return "";
  int64_t now_ms = store::nowMs();
  auto rows = candidates(repo, current_message, max_rows, now_ms);
  std::erase_if(rows, [&](const store::MemoryRow& row) { return withheld.count(row.id) != 0; });
  if (rows.empty()) return "";
  rank(rows, now_ms, static_cast<std::size_t>(max_rows));
  std::string block = "[memory]\n";
  for (const auto& row : rows) block += "- " + renderRow(row) + "\n";
  return block;
}

}  // namespace gantry::memory
