#include "memory/hydration.h"

#include <set>

#include "log/log.h"
#include "memory/ranking.h"

namespace gantry::memory {
namespace {

const std::vector<std::string> kDurableKinds = {"fact", "preference", "person"};

// Active durable rows and FTS hits for the message, each row once (a hit keeps its relevance).
std::vector<store::MemoryRow> candidates(store::MemoryRepo& repo, std::string_view message,
                                         int max_rows, int64_t now_ms) {
  std::vector<store::MemoryRow> rows;
  std::set<int64_t> seen;
  auto hits = repo.matchActive(message, max_rows * 2, now_ms);
  auto durable = repo.active(kDurableKinds, max_rows * 2, now_ms);
  for (auto* batch : {&hits, &durable}) {
    if (!batch->isOk()) {
      log::warn("memory: hydration query failed", {{"error", batch->status().message()}});
      continue;
    }
    for (auto& row : batch->value()) {
      if (seen.insert(row.id).second) rows.push_back(std::move(row));
    }
  }
  return rows;
}

}  // namespace

std::string hydrationBlock(store::MemoryRepo& repo, std::string_view current_message,
                           int max_rows) {
  if (max_rows <= 0) return "";
  int64_t now_ms = store::nowMs();
  auto rows = candidates(repo, current_message, max_rows, now_ms);
  if (rows.empty()) return "";
  rank(rows, now_ms, static_cast<std::size_t>(max_rows));
  std::string block = "[memory]\n";
  for (const auto& row : rows) block += "- " + renderRow(row) + "\n";
  return block;
}

}  // namespace gantry::memory
