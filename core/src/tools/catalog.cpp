#include "tools/catalog.h"

#include <algorithm>

namespace gantry::tools {

void Catalog::add(ToolSource* source) { sources_.push_back(source); }

std::vector<ToolSchema> Catalog::schemas() const {
  std::vector<ToolSchema> all;
  for (const auto* source : sources_) {
    auto tools = source->tools();
    all.insert(all.end(), tools.begin(), tools.end());
  }
  std::stable_sort(all.begin(), all.end(),
                   [](const ToolSchema& a, const ToolSchema& b) { return a.name < b.name; });
  return all;
}

Resolution Catalog::resolve(std::string_view requested) const {
  for (auto* source : sources_) {
    for (const auto& tool : source->tools()) {
      if (tool.name == requested) return {source, tool.name, false, {}};
    }
  }
  return {};
}

}  // namespace gantry::tools
