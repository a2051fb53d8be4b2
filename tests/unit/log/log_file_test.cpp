// The REPL's log file: past its cap it becomes path.1 and a new file begins, so a long session
// on a terminal keeps at most twice the cap on disk. (Each test case runs in its own process
// under CTest: toFile() redirects this process's records for good.)
#include <unistd.h>

#include <catch2/catch.hpp>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "log/log.h"

namespace fs = std::filesystem;

namespace {

std::string slurp(const fs::path& path) {
  std::ifstream in(path);
  std::stringstream text;
  text << in.rdbuf();
  return text.str();
}

}  // namespace

TEST_CASE("the log file is rotated to .1 past its cap and a new one begins", "[log]") {
  const fs::path dir =
      fs::temp_directory_path() / ("gantry-log-file-" + std::to_string(::getpid()));
  fs::remove_all(dir);
  fs::create_directories(dir);
  const fs::path path = dir / "gantry.log";
  REQUIRE(gantry::log::toFile(path.string(), 1000).isOk());
  for (int i = 0; i < 40; ++i) gantry::log::info("record", {{"n", std::to_string(i)}});
  REQUIRE(fs::exists(path.string() + ".1"));
  const std::string older = slurp(path.string() + ".1");
  const std::string newer = slurp(path);
  CHECK(older.find(R"("n":"0")") == std::string::npos);  // an older .1 was replaced
  CHECK(older.find(R"("msg":"record")") != std::string::npos);
  CHECK(newer.find(R"("n":"39")") != std::string::npos);
  CHECK(fs::file_size(path) <= 1000 + 200);
  CHECK(fs::file_size(path.string() + ".1") <= 1000 + 200);
  fs::remove_all(dir);
}
