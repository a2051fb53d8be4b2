#include "memory/persona_conflicts.h"

#include <cctype>

#include "gantry/text/trim.h"
#include "log/log.h"
#include "memory/ranking.h"

namespace gantry::memory {
namespace {

// Letters and digits only, lower case; other bytes of UTF-8 text are kept as they are.
std::string folded(std::string_view text) {
  std::string out;
  out.reserve(text.size());
  for (char c : text) {
    auto u = static_cast<unsigned char>(c);
    if (u >= 0x80 || std::isalnum(u)) out += static_cast<char>(std::tolower(u));
  }
  return out;
}

bool holds(const std::string& persona, const std::string& excerpt) {
  const std::string needle = folded(excerpt);
  return !needle.empty() && folded(persona).find(needle) != std::string::npos;
}

std::string noteFor(const store::MemoryConflict& conflict, const store::MemoryRow& row) {
  const std::string id = std::to_string(conflict.memory_id);
  return "Memory #" + id +
         " contradicts your persona, so I leave it out:\n  memory: " + renderRow(row, 200) +
         "\n  persona: " + conflict.persona_excerpt + "\nTo resolve it: gantry memory forget " +
         id + " (the persona is right), or edit the persona (the memory is).";
}

}  // namespace

std::string personaLineOf(const std::string& persona, const std::string& excerpt) {
  const std::string needle = folded(excerpt);
  if (needle.empty()) return "";
  std::string_view rest = persona;
  while (!rest.empty()) {
    const auto end = rest.find('\n');
    const auto line = rest.substr(0, end);
    if (folded(line).find(needle) != std::string::npos) return std::string(text::trim(line));
    rest.remove_prefix(end == std::string_view::npos ? rest.size() : end + 1);
  }
  return holds(persona, excerpt) ? std::string(text::trim(excerpt)) : "";
}

PersonaConflicts::PersonaConflicts(store::Store& store, std::string persona)
    : store_(store), persona_(std::move(persona)) {}

void PersonaConflicts::setPersona(std::string persona) {
  std::lock_guard lock(mutex_);
  persona_ = std::move(persona);
}

std::vector<store::MemoryConflict> PersonaConflicts::standing() {
  auto conflicts = store::MemoryRepo(store_).conflicts();
  if (!conflicts.isOk()) {
    log::warn("memory: persona conflicts unreadable", {{"error", conflicts.status().message()}});
    return {};
  }
  std::lock_guard lock(mutex_);
  std::vector<store::MemoryConflict> out;
  for (auto& conflict : conflicts.value()) {
    if (conflict.memory_id != 0 && holds(persona_, conflict.persona_excerpt)) {
      out.push_back(std::move(conflict));
    }
  }
  return out;
}

std::set<int64_t> PersonaConflicts::withheldRows() {
  std::set<int64_t> rows;
  for (const auto& conflict : standing()) rows.insert(conflict.memory_id);
  return rows;
}

ConflictNote PersonaConflicts::untold() {
  ConflictNote note;
  store::MemoryRepo repo(store_);
  for (const auto& conflict : standing()) {
    if (conflict.told_at != 0) continue;
    auto row = repo.get(conflict.memory_id);
    if (!row.isOk() || !row.value()) continue;
    note.text += (note.text.empty() ? "" : "\n\n") + noteFor(conflict, *row.value());
    note.conflict_ids.push_back(conflict.id);
  }
  return note;
}

void PersonaConflicts::told(const std::vector<int64_t>& conflict_ids) {
  Status s = store::MemoryRepo(store_).markConflictsTold(conflict_ids);
  if (!s.isOk()) log::warn("memory: persona conflicts not marked told", {{"error", s.message()}});
}

}  // namespace gantry::memory
