#include "store/store.h"

#include <catch2/catch.hpp>
#include <filesystem>
#include <fstream>

#include "store/kv_repo.h"
#include "store/migrations.h"

namespace fs = std::filesystem;
using gantry::store::Store;

namespace {
fs::path tempDb(const char* name) {
  fs::path dir = fs::temp_directory_path() / ("gantry_store_test_" + std::to_string(::getpid()));
  fs::create_directories(dir);
  fs::path p = dir / name;
  fs::remove(p);
  return p;
}
}  // namespace

TEST_CASE("a new database is migrated to the latest schema", "[store]") {
  auto store = Store::open(tempDb("new.db").string());
  REQUIRE(store.isOk());
  CHECK(store.value()->schemaVersion() == static_cast<int>(gantry::store::migrations().size()));
}

TEST_CASE("reopening a database keeps its data and does not migrate twice", "[store]") {
  auto path = tempDb("reopen.db").string();
  {
    auto store = Store::open(path);
    REQUIRE(store.isOk());
    gantry::store::KvRepo kv(*store.value());
    REQUIRE(kv.set("telegram", "offset", "42").isOk());
  }
  auto store = Store::open(path);
  REQUIRE(store.isOk());
  gantry::store::KvRepo kv(*store.value());
  CHECK(kv.get("telegram", "offset") == std::optional<std::string>("42"));
  CHECK(!kv.get("telegram", "missing").has_value());
}

TEST_CASE("a corrupt database is refused loudly and left untouched", "[store]") {
  auto path = tempDb("corrupt.db");
  {
    std::ofstream out(path, std::ios::binary);
    out << "SQLite format 3" << std::string(1, '\0') << std::string(5000, 'x');
  }
  auto before = fs::file_size(path);
  auto store = Store::open(path.string());
  REQUIRE(!store.isOk());
  CHECK(store.status().message().find(path.string()) != std::string::npos);
  CHECK(fs::file_size(path) == before);
}
