#include "tools/repair.h"

#include <algorithm>
#include <cctype>

namespace gantry::tools {
namespace {

// Beyond a third of the name, a candidate is another tool rather than a misspelling of it:
// offering it invites a call nobody meant.
bool closeEnough(std::size_t distance, std::size_t length) {
  return distance <= std::max<std::size_t>(1, length / 3);
}

}  // namespace

std::string foldName(std::string_view name) {
  std::string out;
  for (char c : name) {
    if (c == '-' || c == ' ')
      out.push_back('_');
    else
      out.push_back(static_cast<char>(std::tolower(static_cast<unsigned char>(c))));
  }
  return out;
}

std::string bareToolName(std::string_view name) {
  auto dot = name.rfind('.');
  if (dot != std::string_view::npos) name.remove_prefix(dot + 1);
  auto folded = foldName(name);
  auto separator = folded.find("__");
  return separator == std::string::npos ? folded : folded.substr(separator + 2);
}

std::size_t editDistance(std::string_view a, std::string_view b) {
  std::vector<std::size_t> row(b.size() + 1);
  for (std::size_t j = 0; j <= b.size(); ++j) row[j] = j;
  for (std::size_t i = 1; i <= a.size(); ++i) {
    std::size_t diagonal = row[0];
    row[0] = i;
    for (std::size_t j = 1; j <= b.size(); ++j) {
      const std::size_t above = row[j];
      row[j] = std::min({row[j] + 1, row[j - 1] + 1, diagonal + (a[i - 1] == b[j - 1] ? 0 : 1)});
      diagonal = above;
    }
  }
  return row[b.size()];
}

std::string singleUnderscoreName(std::string_view name) {
  auto folded = foldName(name);
  auto separator = folded.find("__");
  if (separator != std::string::npos) folded.erase(separator, 1);
  return folded;
}

std::vector<std::string> closestNames(std::string_view requested,
                                      const std::vector<std::string>& names, std::size_t limit) {
  const auto folded = foldName(requested);
  const auto bare = bareToolName(requested);
  std::vector<std::pair<std::size_t, std::string>> scored;
  for (const auto& name : names) {
    const auto whole = editDistance(folded, foldName(name));
    const auto tool = editDistance(bare, bareToolName(name));
    const bool close = closeEnough(whole, folded.size()) || closeEnough(tool, bare.size());
    if (close) scored.emplace_back(std::min(whole, tool), name);
  }
  std::sort(scored.begin(), scored.end());
  std::vector<std::string> out;
  for (std::size_t i = 0; i < scored.size() && i < limit; ++i) out.push_back(scored[i].second);
  return out;
}

}  // namespace gantry::tools
