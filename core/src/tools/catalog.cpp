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
std::string singleUnderscore(std::string_view name) { return singleUnderscoreName(name); }

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
      if (tool.name == requested) return {source, tool.name, false, {}, {}};
      entries.push_back({source, tool.name});
    }
  }
  // A name of a down server's tool means that server: no tool that is up stands in for it.
  if (auto outage = outageOf(requested, "__"); !outage.empty()) {
    return {nullptr, {}, false, {}, std::move(outage)};
  }
  // Each step only repairs when exactly one tool can be meant.
  const auto written = dotted(requested);
  const Entry* match = unique(entries, written, folded);
  if (match == nullptr) match = unique(entries, bare(requested), bare);
  if (match == nullptr) match = unique(entries, written, singleUnderscore);
  if (match != nullptr) {
    log::info("tool_name_repaired", {{"requested", std::string(requested)}, {"tool", match->name}});
    return {match->source, match->name, true, {}, {}};
  }
  if (auto outage = outageOf(requested, "_"); !outage.empty()) {
    return {nullptr, {}, false, {}, std::move(outage)};
  }
  std::vector<std::string> names;
  names.reserve(entries.size());
  for (const auto& entry : entries) names.push_back(entry.name);
  return {nullptr, {}, false, closestNames(requested, names, kMaxCandidates), {}};
}

std::string Catalog::outageOf(std::string_view requested, std::string_view separator) const {
  const auto written = dotted(requested);
  for (const auto* source : sources_) {
    const auto prefix = source->namePrefix();
    if (prefix.empty()) continue;
    const auto head = foldName(prefix) + std::string(separator);
    if (written.compare(0, head.size(), head) != 0) continue;
    if (auto outage = source->outage(); !outage.empty()) return outage;
  }
  return {};
}

}  // namespace gantry::tools
