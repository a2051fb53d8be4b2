#pragma once
/// How memory rows are ordered for recall and hydration: relevance + recency + kind.

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "store/memory_repo.h"

namespace gantry::memory {

/// Weight of a kind: persons, preferences and facts outrank insights, which outrank episodes.
double kindWeight(std::string_view kind);

/// kindWeight(kind) * (relevance / (relevance + 1) + 0.35 * recency), where recency is
/// 1 / (1 + age_days / 30) of updated_at at now_ms. Higher is better.
double score(const store::MemoryRow& row, int64_t now_ms);

/// The highest score a row of one of kinds can have with no relevance (a recency of 1).
double ceilingWithoutRelevance(const std::vector<std::string>& kinds);

/// Sorts rows best first by score (ties: newer id first) and keeps at most limit.
void rank(std::vector<store::MemoryRow>& rows, int64_t now_ms, std::size_t limit);

/// One line "(kind) subject: content" with line breaks flattened and content cut to
/// max_content_chars on a UTF-8 boundary.
std::string renderRow(const store::MemoryRow& row, std::size_t max_content_chars = 400);

}  // namespace gantry::memory
