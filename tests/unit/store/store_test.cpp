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

TEST_CASE("operator access leaves an older schema as it is", "[store]") {
  using gantry::store::Access;
  auto path = tempDb("older.db").string();
  {
    std::ofstream touch(path);  // an empty file: schema version 0
  }
  for (Access access : {Access::kReadOnly, Access::kNoSchema}) {
    auto store = Store::open(path, access);
    REQUIRE(store.isOk());
    CHECK(store.value()->schemaVersion() == 0);
  }
  auto owner = Store::open(path, Access::kOwner);
  REQUIRE(owner.isOk());
  CHECK(owner.value()->schemaVersion() == static_cast<int>(gantry::store::migrations().size()));
}

TEST_CASE("read-only access refuses writes and still reads", "[store]") {
  auto path = tempDb("readonly.db").string();
  {
    auto store = Store::open(path);
    REQUIRE(store.isOk());
    REQUIRE(gantry::store::KvRepo(*store.value()).set("telegram", "offset", "7").isOk());
  }
  auto store = Store::open(path, gantry::store::Access::kReadOnly);
  REQUIRE(store.isOk());
  gantry::store::KvRepo kv(*store.value());
  CHECK(kv.get("telegram", "offset") == std::optional<std::string>("7"));
  CHECK_FALSE(kv.set("telegram", "offset", "8").isOk());
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
