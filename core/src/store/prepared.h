#pragma once
/// Prepared statements kept for the life of the connection, for the queries every turn runs.
/// Poco::Data compiles a statement on each use and extracts rows through Dynamic::Var and
/// deques; on the per-turn path that cost more than the queries themselves.
/// Included by store/*.cpp only; errors throw Poco::Data::DataException, which the
/// repositories' guards already turn into a Status (a full disk as
/// Poco::Data::SQLite::DatabaseFullException).

#include <cstdint>
#include <map>
#include <string>
#include <string_view>

struct sqlite3;
struct sqlite3_stmt;

namespace gantry::store {

/// The statements compiled on one connection, by SQL text; finalized with it. Only for SQL
/// built from a fixed set of texts: each distinct text stays compiled.
class PreparedCache {
 public:
  explicit PreparedCache(sqlite3* db) : db_(db) {}
  ~PreparedCache();
  PreparedCache(const PreparedCache&) = delete;
  PreparedCache& operator=(const PreparedCache&) = delete;

  sqlite3_stmt* get(const char* sql);
  sqlite3* db() const { return db_; }

 private:
  sqlite3* db_;
  std::map<std::string, sqlite3_stmt*, std::less<>> statements_;
};

/// One use of a cached statement: bind left to right, step through the rows; reset (and its
/// bindings cleared) when it goes out of scope, so the next use starts fresh.
class Query {
 public:
  Query(PreparedCache& cache, const char* sql);
  ~Query();
  Query(const Query&) = delete;
  Query& operator=(const Query&) = delete;

  Query& bind(int64_t value);
  Query& bind(std::string_view text);
  /// Binds NULL for an empty text (NULLIF(?, '') in SQL, without the function call).
  Query& bindOrNull(std::string_view text);
  /// True while a row is available; false once done.
  bool step();
  /// Runs a statement that returns no rows.
  void run();
  int64_t integer(int column) const;
  double real(int column) const;
  std::string text(int column) const;

 private:
  [[noreturn]] void fail(const char* what) const;
  PreparedCache& cache_;
  sqlite3_stmt* stmt_;
  int next_ = 1;
};

}  // namespace gantry::store
