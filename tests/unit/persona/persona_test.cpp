#include "persona/persona.h"

#include <catch2/catch.hpp>
#include <filesystem>
#include <fstream>

namespace fs = std::filesystem;

namespace {
fs::path freshDir(const std::string& name) {
  fs::path dir =
      fs::temp_directory_path() / ("gantry_persona_" + name + std::to_string(::getpid()));
  fs::remove_all(dir);
  fs::create_directories(dir);
  return dir;
}
void write(const fs::path& p, const std::string& text) { std::ofstream(p) << text; }
}  // namespace

TEST_CASE("persona files are joined in the fixed order, then the rest by name", "[persona]") {
  auto dir = freshDir("order");
  write(dir / "zeta.md", "Z");
  write(dir / "TOOLS.md", "T");
  write(dir / "alpha.md", "A");
  write(dir / "USER.md", "U");
  write(dir / "SOUL.md", "S");
  write(dir / "IDENTITY.md", "I");
  write(dir / "notes.txt", "ignored");
  auto p = gantry::persona::load(dir.string());
  REQUIRE(p.isOk());
  CHECK(p->files == std::vector<std::string>{"IDENTITY.md", "SOUL.md", "USER.md", "TOOLS.md",
                                             "alpha.md", "zeta.md"});
  CHECK(p->text.find('I') < p->text.find("# SOUL.md"));
  CHECK(p->user == "U");
  CHECK(p->text.find("ignored") == std::string::npos);
}

TEST_CASE("a missing or empty persona directory is a boot error", "[persona]") {
  auto missing = gantry::persona::load("/nonexistent/gantry/persona");
  REQUIRE(!missing.isOk());
  CHECK(missing.status().message().rfind("PERSONA_DIR: /nonexistent/gantry/persona", 0) == 0);
  auto dir = freshDir("empty");
  write(dir / "IDENTITY.md", "  \n");
  auto empty = gantry::persona::load(dir.string());
  REQUIRE(!empty.isOk());
  CHECK(empty.status().message().find("has no non-empty *.md files") != std::string::npos);
}
