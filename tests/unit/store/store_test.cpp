#include "store/store.h"

#include <Poco/Data/SQLite/Utility.h>
#include <sqlite3.h>

#include <algorithm>
#include <catch2/catch.hpp>
#include <filesystem>
#include <fstream>

#include "store/db.h"
#include "store/kv_repo.h"
#include "store/migrations.h"

namespace fs = std::filesystem;
using gantry::store::Access;
using gantry::store::Check;
using gantry::store::Store;

namespace {
fs::path tempDb(const char* name) {
  fs::path dir = fs::temp_directory_path() / ("gantry_store_test_" + std::to_string(::getpid()));
  fs::create_directories(dir);
  fs::path p = dir / name;
  fs::remove(p);
  return p;
}

/// Runs sql on a connection of its own (another process's view of the file); returns the
/// first column of the last row, or -1 when there is none.
int64_t sqlite(const fs::path& path, const std::string& sql) {
  sqlite3* db = nullptr;
  REQUIRE(sqlite3_open(path.c_str(), &db) == SQLITE_OK);
  int64_t value = -1;
  auto row = [](void* out, int, char** columns, char**) {
    *static_cast<int64_t*>(out) = columns[0] ? std::stoll(columns[0]) : -1;
    return 0;
  };
  int rc = sqlite3_exec(db, sql.c_str(), row, &value, nullptr);
  sqlite3_close(db);
  REQUIRE(rc == SQLITE_OK);
  return value;
}

bool cleanStopMarked(const fs::path& path) {
  return sqlite(path, "SELECT count(*) FROM kv WHERE namespace = 'store' AND key = 'clean_stop'") ==
         1;
}

/// Overwrites the root page of table with garbage: quick_check reads it, opening does not.
void damageTable(const fs::path& path, const std::string& table) {
  int64_t page_size = sqlite(path, "PRAGMA page_size");
  int64_t root = sqlite(path, "SELECT rootpage FROM sqlite_schema WHERE name = '" + table + "'");
  std::fstream file(path, std::ios::in | std::ios::out | std::ios::binary);
  file.seekp((root - 1) * page_size);
  file << std::string(static_cast<std::size_t>(page_size), 'x');
}
}  // namespace

// CTest runs each case in a process of its own, where this open is SQLite's first use.
TEST_CASE("a store's connection has no SQLite mutex: the store's lock serializes it", "[store]") {
  auto store = Store::open(tempDb("mutex.db").string());
  REQUIRE(store.isOk());
  sqlite3* db = Poco::Data::SQLite::Utility::dbHandle(store.value()->db().session);
  CHECK(sqlite3_db_mutex(db) == nullptr);
}

TEST_CASE("a new database is migrated to the latest schema", "[store]") {
  auto store = Store::open(tempDb("new.db").string());
  REQUIRE(store.isOk());
  CHECK(store.value()->schemaVersion() == static_cast<int>(gantry::store::migrations().size()));
}

// SQLite computes every generated column of a row it inserts or updates: a virtual column over
// a message's content cost each recorded message a scan of it (migration kV11).
TEST_CASE("the latest schema's message rows carry no generated column", "[store]") {
  auto store = Store::open(tempDb("generated.db").string());
  REQUIRE(store.isOk());
  sqlite3* db = Poco::Data::SQLite::Utility::dbHandle(store.value()->db().session);
  sqlite3_stmt* columns = nullptr;
  REQUIRE(sqlite3_prepare_v2(db, "SELECT name, hidden FROM pragma_table_xinfo('messages')", -1,
                             &columns, nullptr) == SQLITE_OK);
  int seen = 0;
  while (sqlite3_step(columns) == SQLITE_ROW) {
    INFO(reinterpret_cast<const char*>(sqlite3_column_text(columns, 0)));
    CHECK(sqlite3_column_int(columns, 1) == 0);  // 2 and 3: generated (virtual, stored)
    ++seen;
  }
  sqlite3_finalize(columns);
  CHECK(seen == 12);
}

namespace {
/// The opcodes of sql's program on db.
std::vector<std::string> opcodes(sqlite3* db, const std::string& sql) {
  sqlite3_stmt* explain = nullptr;
  REQUIRE(sqlite3_prepare_v2(db, ("EXPLAIN " + sql).c_str(), -1, &explain, nullptr) == SQLITE_OK);
  std::vector<std::string> out;
  while (sqlite3_step(explain) == SQLITE_ROW) {
    out.emplace_back(reinterpret_cast<const char*>(sqlite3_column_text(explain, 1)));
  }
  sqlite3_finalize(explain);
  return out;
}

constexpr const char* kMemoryFromChat =
    "INSERT INTO memory(kind, subject, content, source, confidence, created_at, updated_at) "
    "VALUES ('fact', 's', 'c', 'chat', 1, 0, 0)";
constexpr const char* kMemoryFromRumour =
    "INSERT INTO memory(kind, subject, content, source, confidence, created_at, updated_at) "
    "VALUES ('fact', 's', 'c', 'rumour', 1, 0, 0)";
}  // namespace

// SQLite checks `x IN (three or more values)` through a temporary b-tree built for each row
// (migration kV12).
TEST_CASE("recording a message or a reply to send builds no temporary b-tree", "[store]") {
  auto store = Store::open(tempDb("checks.db").string());
  REQUIRE(store.isOk());
  sqlite3* db = Poco::Data::SQLite::Utility::dbHandle(store.value()->db().session);
  for (const char* sql :
       {"INSERT INTO messages(session_id, role, content, created_at) VALUES (1, 'user', 'hi', 0)",
        "INSERT INTO outbox(chat_id, text, created_at) VALUES ('c', 'hi', 0)",
        "UPDATE outbox SET state = 'sending' WHERE id = 1",
        "UPDATE tool_calls SET status = 'ok' WHERE id = 1", kMemoryFromChat}) {
    INFO(sql);
    auto program = opcodes(db, sql);
    CHECK(std::find(program.begin(), program.end(), "OpenEphemeral") == program.end());
  }
  CHECK(sqlite(store.value()->path(),
               "SELECT count(*) FROM sqlite_schema WHERE sql LIKE '%CHECK(% IN (%'") == 0);
}

TEST_CASE("the latest schema still refuses a value its CHECK does not list", "[store]") {
  auto path = tempDb("refuses.db");
  REQUIRE(Store::open(path.string()).isOk());
  sqlite(path, "INSERT INTO sessions(id, chat_id, created_at, updated_at) VALUES (1, 'c', 0, 0)");
  for (const char* state : {"pending", "sending", "delivered", "failed", "dropped"}) {
    sqlite(path, std::string("INSERT INTO outbox(chat_id, text, state, created_at) VALUES ('c', "
                             "'hi', '") +
                     state + "', 0)");
  }
  for (const char* role : {"system", "user", "assistant", "tool"}) {
    sqlite(path, std::string("INSERT INTO messages(session_id, role, content, created_at) VALUES "
                             "(1, '") +
                     role + "', 'hi', 0)");
  }
  CHECK(sqlite(path, "SELECT count(*) FROM outbox") == 5);
  CHECK(sqlite(path, "SELECT count(*) FROM messages") == 4);
  sqlite3* db = nullptr;
  REQUIRE(sqlite3_open(path.c_str(), &db) == SQLITE_OK);
  for (const char* refused :
       {"INSERT INTO outbox(chat_id, text, state, created_at) VALUES ('c', 'hi', 'lost', 0)",
        "UPDATE outbox SET state = 'Pending'",
        "INSERT INTO messages(session_id, role, content, created_at) VALUES (1, 'bot', 'hi', 0)",
        kMemoryFromRumour}) {
    INFO(refused);
    CHECK(sqlite3_exec(db, refused, nullptr, nullptr, nullptr) == SQLITE_CONSTRAINT);
  }
  sqlite3_close(db);
}

TEST_CASE("operator access leaves an older schema as it is", "[store]") {
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

TEST_CASE("the owner removes the clean-stop mark at open and writes it at a clean stop",
          "[store]") {
  auto path = tempDb("mark.db");
  {
    auto owner = Store::open(path.string());
    REQUIRE(owner.isOk());
    CHECK_FALSE(cleanStopMarked(path));  // killed now, the next open would check
  }
  CHECK(cleanStopMarked(path));
  for (Access access : {Access::kReadOnly, Access::kNoSchema}) {
    REQUIRE(Store::open(path.string(), access).isOk());
    CHECK(cleanStopMarked(path));  // only the owner's stop says anything about the file
  }
  auto owner = Store::open(path.string());
  REQUIRE(owner.isOk());
  CHECK_FALSE(cleanStopMarked(path));
}

TEST_CASE("quick_check runs after an unclean stop or when asked, not after a clean stop",
          "[store]") {
  auto path = tempDb("damaged.db");
  REQUIRE(Store::open(path.string()).isOk());
  sqlite(path,
         "CREATE TABLE filler(x); WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 "
         "FROM n WHERE i < 500) INSERT INTO filler SELECT randomblob(500) FROM n");
  damageTable(path, "filler");
  REQUIRE(cleanStopMarked(path));

  CHECK(Store::open(path.string()).isOk());  // the damage is not read at a clean start
  auto asked = Store::open(path.string(), Access::kNoSchema, Check::kAlways);
  REQUIRE_FALSE(asked.isOk());
  CHECK(asked.status().message().find("failed PRAGMA quick_check") != std::string::npos);

  sqlite(path, "DELETE FROM kv WHERE namespace = 'store'");  // what a killed owner leaves
  auto before = fs::file_size(path);
  auto unclean = Store::open(path.string());
  REQUIRE_FALSE(unclean.isOk());
  CHECK(unclean.status().message().find("failed PRAGMA quick_check") != std::string::npos);
  CHECK(unclean.status().message().find(path.string()) != std::string::npos);
  CHECK(fs::file_size(path) == before);
}

TEST_CASE("releasing memory empties the page cache and the store goes on working", "[store]") {
  auto path = tempDb("release.db");
  auto store = Store::open(path.string());
  REQUIRE(store.isOk());
  gantry::store::KvRepo kv(*store.value());
  for (int i = 0; i < 50; ++i) {
    REQUIRE(kv.set("test", "key" + std::to_string(i), std::string(500, 'v')).isOk());
  }
  auto cacheUsed = [&] {
    int used = 0, highwater = 0;
    sqlite3* db = Poco::Data::SQLite::Utility::dbHandle(store.value()->db().session);
    sqlite3_db_status(db, SQLITE_DBSTATUS_CACHE_USED, &used, &highwater, 0);
    return used;
  };
  const int before = cacheUsed();
  REQUIRE(before > 0);
  store.value()->releaseMemory();
  CHECK(cacheUsed() < before);
  CHECK(kv.get("test", "key7") == std::string(500, 'v'));
}

TEST_CASE("a file without gantry's schema is named by operator commands", "[store]") {
  auto path = tempDb("noschema.db");
  { std::ofstream touch(path); }
  auto store = Store::open(path.string(), Access::kReadOnly);
  REQUIRE(store.isOk());
  auto refused = store.value()->requireSchema();
  REQUIRE_FALSE(refused.isOk());
  CHECK(refused.message().find(path.string()) != std::string::npos);
  CHECK(refused.message().find("no gantry data yet") != std::string::npos);
  auto owner = Store::open(tempDb("schema.db").string());
  REQUIRE(owner.isOk());
  CHECK(owner.value()->requireSchema().isOk());
}
