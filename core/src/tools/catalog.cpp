#include "tools/catalog.h"

#include <algorithm>

#include "log/log.h"
#include "tools/repair.h"

namespace gantry::tools {
namespace {

constexpr std::size_t kMaxCandidates = 5;

struct Entry {
  ToolSource* source;
  std::string name;
};

/// The single entry whose key equals key, or null when none or several match.
const Entry* unique(const std::vector<Entry>& entries, const std::string& key,
                    std::string (*keyOf)(std::string_view)) {
  const Entry* found = nullptr;
  for (const auto& entry : entries) {
    if (keyOf(entry.name) != key) continue;
    if (found != nullptr) return nullptr;
    found = &entry;
  }
  return found;
}

std::string folded(std::string_view name) { return foldName(name); }
std::string bare(std::string_view name) { return bareToolName(name); }

/// `functions.get_hrv` → `get_hrv`; `garmin.get_hrv` → `garmin__get_hrv`.
std::string dotted(std::string_view name) {
  auto dot = name.rfind('.');
  if (dot == std::string_view::npos) return foldName(name);
  auto head = foldName(name.substr(0, dot));
  auto tail = foldName(name.substr(dot + 1));
  if (head == "functions" || head == "function" || head == "tools" || head == "tool") return tail;
  return head + "__" + tail;
}

}  // namespace

void Catalog::add(ToolSource* source) { sources_.push_back(source); }

ToolList Catalog::schemas() const {
  std::vector<ToolSchema> all;
  for (const auto* source : sources_) {
    auto tools = source->tools();
    all.insert(all.end(), tools->begin(), tools->end());
  }
  std::stable_sort(all.begin(), all.end(),
                   [](const ToolSchema& a, const ToolSchema& b) { return a.name < b.name; });
  return makeToolList(std::move(all));
}

Resolution Catalog::resolve(std::string_view requested) const {
  std::vector<Entry> entries;
  for (auto* source : sources_) {
    const ToolList tools = source->tools();  // held while iterated
    for (const auto& tool : *tools) {
      if (tool.name == requested) return {source, tool.name, false, {}};
      entries.push_back({source, tool.name});
    }
  }
  // Each step only repairs when exactly one tool can be meant.
  const Entry* match = unique(entries, dotted(requested), folded);
  if (match == nullptr) match = unique(entries, bare(requested), bare);
  if (match != nullptr) {
    log::info("tool_name_repaired", {{"requested", std::string(requested)}, {"tool", match->name}});
    return {match->source, match->name, true, {}};
  }
  std::vector<std::string> names;
  names.reserve(entries.size());
  for (const auto& entry : entries) names.push_back(entry.name);
  return {nullptr, {}, false, closestNames(requested, names, kMaxCandidates)};
}

}  // namespace gantry::tools
