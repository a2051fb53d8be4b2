#include "store/prepared.h"

#include <Poco/Data/DataException.h>
#include <Poco/Data/SQLite/SQLiteException.h>
#include <sqlite3.h>

namespace gantry::store {

PreparedCache::~PreparedCache() {
  for (auto& [sql, stmt] : statements_) sqlite3_finalize(stmt);
}

sqlite3_stmt* PreparedCache::get(const char* sql) {
  auto it = statements_.find(std::string_view(sql));
  if (it != statements_.end()) return it->second;
  sqlite3_stmt* stmt = nullptr;
  if (sqlite3_prepare_v3(db_, sql, -1, SQLITE_PREPARE_PERSISTENT, &stmt, nullptr) != SQLITE_OK) {
    throw Poco::Data::DataException(std::string("prepare: ") + sqlite3_errmsg(db_));
  }
  statements_.emplace(sql, stmt);
  return stmt;
}

Query::Query(PreparedCache& cache, const char* sql) : cache_(cache), stmt_(cache.get(sql)) {}

Query::~Query() {
  sqlite3_reset(stmt_);
  sqlite3_clear_bindings(stmt_);
}

Query& Query::bind(int64_t value) {
  if (sqlite3_bind_int64(stmt_, next_++, value) != SQLITE_OK) fail("bind");
  return *this;
}

Query& Query::bind(std::string_view text) {
  if (sqlite3_bind_text(stmt_, next_++, text.data(), static_cast<int>(text.size()),
                        SQLITE_TRANSIENT) != SQLITE_OK) {
    fail("bind");
  }
  return *this;
}

Query& Query::bindOrNull(std::string_view text) {
  if (!text.empty()) return bind(text);
  if (sqlite3_bind_null(stmt_, next_++) != SQLITE_OK) fail("bind");
  return *this;
}

bool Query::step() {
  int rc = sqlite3_step(stmt_);
  if (rc == SQLITE_ROW) return true;
  if (rc != SQLITE_DONE) fail("step");
  return false;
}

void Query::run() {
  while (step()) {
  }
}

int64_t Query::integer(int column) const { return sqlite3_column_int64(stmt_, column); }

double Query::real(int column) const { return sqlite3_column_double(stmt_, column); }

std::string Query::text(int column) const {
  const auto* data = reinterpret_cast<const char*>(sqlite3_column_text(stmt_, column));
  return data ? std::string(data, static_cast<std::size_t>(sqlite3_column_bytes(stmt_, column)))
              : std::string();
}

// A full disk keeps its own type, as Poco's statements throw it: the callers tell the owner
// to free space, and a retry can help.
void Query::fail(const char* what) const {
  std::string message = std::string(what) + ": " + sqlite3_errmsg(cache_.db());
  if (sqlite3_errcode(cache_.db()) == SQLITE_FULL) {
    throw Poco::Data::SQLite::DatabaseFullException(message);
  }
  throw Poco::Data::DataException(message);
}

}  // namespace gantry::store
