#include "memory/ranking.h"

#include <algorithm>
#include <string>

#include "gantry/text/split.h"

namespace gantry::memory {
namespace {

constexpr double kMsPerDay = 86400000.0;
constexpr double kRecencyDays = 30.0;
constexpr double kRecencyWeight = 0.35;

// Appends text to out with its line breaks and tabs as spaces.
void appendFlat(std::string& out, std::string_view text) {
  const auto from = static_cast<std::ptrdiff_t>(out.size());
  out += text;
  std::replace_if(
      out.begin() + from, out.end(), [](char c) { return c == '\n' || c == '\r' || c == '\t'; },
      ' ');
}

}  // namespace

double kindWeight(std::string_view kind) {
  if (kind == "person") return 1.3;
  if (kind == "preference") return 1.25;
  if (kind == "fact") return 1.2;
  if (kind == "insight") return 1.0;
  return 0.8;  // episode
}

double score(const store::MemoryRow& row, int64_t now_ms) {
  double age_days = std::max(0.0, static_cast<double>(now_ms - row.updated_at) / kMsPerDay);
  double recency = 1.0 / (1.0 + age_days / kRecencyDays);
  double relevance = row.relevance > 0 ? row.relevance / (row.relevance + 1.0) : 0.0;
  return kindWeight(row.kind) * (relevance + kRecencyWeight * recency);
}

double ceilingWithoutRelevance(const std::vector<std::string>& kinds) {
  double ceiling = 0;
  for (const auto& kind : kinds) ceiling = std::max(ceiling, kindWeight(kind) * kRecencyWeight);
  return ceiling;
}

void rank(std::vector<store::MemoryRow>& rows, int64_t now_ms, std::size_t limit) {
  store::keepBestScored(
      rows, limit, [](const store::MemoryRow& row) -> const store::MemoryRow& { return row; },
      [now_ms](const store::MemoryRow& row) { return score(row, now_ms); });
}

// Built in one string, not a character at a time.
std::string renderRow(const store::MemoryRow& row, std::size_t max_content_chars) {
  const std::size_t keep = text::utf8Prefix(row.content, max_content_chars);
  std::string line;
  line.reserve(row.kind.size() + row.subject.size() + keep + 8);
  line += '(';
  line += row.kind;
  line += ") ";
  appendFlat(line, row.subject);
  line += ": ";
  appendFlat(line, std::string_view(row.content).substr(0, keep));
  if (keep < row.content.size()) line += "…";
  return line;
}

}  // namespace gantry::memory
