// Tool-name repair (tools/repair.h): the first line is the name a model asked for, the other
// lines the published names; the closest names come from that list, at most `limit` of them.

#include <algorithm>
#include <string>
#include <vector>

#include "fuzz_support.h"
#include "tools/repair.h"

namespace {

std::vector<std::string> lines(std::string_view text) {
  std::vector<std::string> out;
  while (!text.empty()) {
    const auto end = std::min(text.find('\n'), text.size());
    out.emplace_back(text.substr(0, end));
    text.remove_prefix(std::min(end + 1, text.size()));
  }
  return out;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  auto names = lines(gantry::fuzz::asText(data, size));
  if (names.empty()) return 0;
  const std::string requested = names.front();
  names.erase(names.begin());
  (void)gantry::tools::foldName(requested);
  (void)gantry::tools::bareToolName(requested);
  for (const auto& name : names) {
    const auto distance = gantry::tools::editDistance(requested, name);
    gantry::fuzz::require(distance <= std::max(requested.size(), name.size()),
                          "edit distance is at most the longer length");
    gantry::fuzz::require(distance == gantry::tools::editDistance(name, requested),
                          "edit distance is symmetric");
  }
  const auto closest = gantry::tools::closestNames(requested, names, 3);
  gantry::fuzz::require(closest.size() <= std::min<std::size_t>(3, names.size()),
                        "closestNames returns at most limit names");
  for (const auto& name : closest) {
    gantry::fuzz::require(std::find(names.begin(), names.end(), name) != names.end(),
                          "closestNames returns only given names");
  }
  return 0;
}
