#pragma once
/// Contradictions with the persona at turn time (DESIGN 3.1: the persona outranks memory). A
/// memory row the consolidation found contradicting a persona line (store: memory_conflicts,
/// memory_id set) stands while unresolved and while the persona still holds that line: the row
/// is then withheld from the `[memory]` block, and the owner is told once, in the chat, which
/// row and line, and how to resolve it (`gantry memory forget ID`, which resolves it, or an
/// edit of the persona, after which the line no longer stands).

#include <cstdint>
#include <mutex>
#include <set>
#include <string>
#include <vector>

#include "store/memory_repo.h"
#include "store/store.h"

namespace gantry::memory {

/// The line of persona that holds excerpt, trimmed, compared ignoring case, spaces and
/// punctuation; else the excerpt itself, trimmed, when the persona holds it across lines; ""
/// when the persona does not hold it (or it has no letters or digits). Pure.
std::string personaLineOf(const std::string& persona, const std::string& excerpt);

/// What to tell the owner about standing conflicts not told yet.
struct ConflictNote {
  std::string text;                   ///< "" when there is nothing to tell
  std::vector<int64_t> conflict_ids;  ///< mark these told once text was sent
};

/// The standing conflicts against the current persona. Thread-safe: turn threads ask, the
/// SIGHUP reload sets the persona. The store must outlive it. Store failures are logged and
/// withhold nothing, tell nothing (a turn never fails for them).
class PersonaConflicts {
 public:
  /// persona: the persona's whole text, as the system message holds it.
  PersonaConflicts(store::Store& store, std::string persona);
  PersonaConflicts(const PersonaConflicts&) = delete;
  PersonaConflicts& operator=(const PersonaConflicts&) = delete;

  void setPersona(std::string persona);
  /// The ids of the rows a standing conflict names: left out of hydration.
  std::set<int64_t> withheldRows();
  /// The note on standing conflicts the owner was not told about yet.
  ConflictNote untold();
  /// Records that the owner was told about these conflicts.
  void told(const std::vector<int64_t>& conflict_ids);

 private:
  std::vector<store::MemoryConflict> standing();

  store::Store& store_;
  std::mutex mutex_;
  std::string persona_;
};

}  // namespace gantry::memory
