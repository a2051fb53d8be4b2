// The persona outranks memory at turn time (DESIGN 3.1): a row the consolidation found
// contradicting a persona line is withheld from hydration while the persona holds the line,
// and the owner is told once.
#include "memory/persona_conflicts.h"

#include <catch2/catch.hpp>

#include "memory/hydration.h"
#include "unit/memory/temp_store.h"

using gantry::memory::hydrationBlock;
using gantry::memory::PersonaConflicts;
using gantry::memory::personaLineOf;
using gantry::store::MemoryRepo;
using gantry::store::NewMemory;
using gantry::testing::TempStore;

namespace {

const std::string kPersona = "# USER.md\n- Name: Ada\n- Hates tea; drinks coffee.\n";

int64_t tea(MemoryRepo& repo) {
  auto id = repo.insert(NewMemory{"preference", "tea", "loves tea", "chat", 1.0, 0});
  REQUIRE(id.isOk());
  return id.value();
}

}  // namespace

TEST_CASE("a persona excerpt is matched to its whole line, ignoring case and punctuation",
          "[memory]") {
  CHECK(personaLineOf(kPersona, "hates  TEA") == "- Hates tea; drinks coffee.");
  CHECK(personaLineOf(kPersona, "Bob hates tea") == "");
  CHECK(personaLineOf(kPersona, "name: ada - hates tea") == "name: ada - hates tea");
  CHECK(personaLineOf(kPersona, " ... ") == "");
}

TEST_CASE("a row contradicting a persona line is withheld from the memory block", "[memory]") {
  TempStore temp;
  MemoryRepo repo(temp.store());
  int64_t id = tea(repo);
  REQUIRE(repo.insert(NewMemory{"fact", "coffee", "two cups a day", "chat", 1.0, 0}).isOk());
  REQUIRE(repo.insertConflict("tea", "loves tea", "- Hates tea; drinks coffee.", id).isOk());
  PersonaConflicts conflicts(temp.store(), kPersona);
  CHECK(conflicts.withheldRows() == std::set<int64_t>{id});
  std::string block = hydrationBlock(repo, "tea or coffee?", 30, conflicts.withheldRows());
  CHECK(block.find("loves tea") == std::string::npos);
  CHECK(block.find("two cups a day") != std::string::npos);
}

TEST_CASE("the owner is told about a standing conflict once, with the row and the line",
          "[memory]") {
  TempStore temp;
  MemoryRepo repo(temp.store());
  int64_t id = tea(repo);
  REQUIRE(repo.insertConflict("tea", "loves tea", "- Hates tea; drinks coffee.", id).isOk());
  PersonaConflicts conflicts(temp.store(), kPersona);
  auto note = conflicts.untold();
  CHECK(note.text.find("Memory #" + std::to_string(id)) != std::string::npos);
  CHECK(note.text.find("(preference) tea: loves tea") != std::string::npos);
  CHECK(note.text.find("- Hates tea; drinks coffee.") != std::string::npos);
  CHECK(note.text.find("gantry memory forget " + std::to_string(id)) != std::string::npos);
  CHECK(note.text.find("edit the persona") != std::string::npos);
  REQUIRE(note.conflict_ids.size() == 1);
  CHECK(conflicts.untold().text == note.text);  // not told until marked
  conflicts.told(note.conflict_ids);
  CHECK(conflicts.untold().text.empty());
  CHECK(conflicts.withheldRows() == std::set<int64_t>{id});  // told, still withheld
}

TEST_CASE("forgetting the row resolves its conflict", "[memory]") {
  TempStore temp;
  MemoryRepo repo(temp.store());
  int64_t id = tea(repo);
  REQUIRE(repo.insertConflict("tea", "loves tea", "- Hates tea; drinks coffee.", id).isOk());
  REQUIRE(repo.forgetById(id).value().size() == 1);
  CHECK(repo.conflicts().value().empty());
  CHECK(repo.conflicts(true).value().at(0).resolved);
}

TEST_CASE("a conflict lapses once the persona no longer holds its line", "[memory]") {
  TempStore temp;
  MemoryRepo repo(temp.store());
  int64_t id = tea(repo);
  REQUIRE(repo.insertConflict("tea", "loves tea", "- Hates tea; drinks coffee.", id).isOk());
  PersonaConflicts conflicts(temp.store(), kPersona);
  REQUIRE(conflicts.withheldRows().size() == 1);
  conflicts.setPersona("# USER.md\n- Name: Ada\n- Loves tea now.\n");
  CHECK(conflicts.withheldRows().empty());
  CHECK(conflicts.untold().text.empty());
  CHECK(hydrationBlock(repo, "tea", 30, conflicts.withheldRows()).find("loves tea") !=
        std::string::npos);
}

TEST_CASE("a conflict that names no row withholds nothing", "[memory]") {
  TempStore temp;
  MemoryRepo repo(temp.store());
  tea(repo);
  REQUIRE(repo.insertConflict("tea", "loves tea", "- Hates tea; drinks coffee.").isOk());
  PersonaConflicts conflicts(temp.store(), kPersona);
  CHECK(conflicts.withheldRows().empty());
  CHECK(conflicts.untold().text.empty());
}
