#pragma once
// A second connection to a store's file, for what the store's own connection does not see
// done: another writer, or a reference to compare with.

#include <sqlite3.h>

#include <catch2/catch.hpp>
#include <string>

namespace gantry::testing {

class OtherConnection {
 public:
  explicit OtherConnection(const std::string& path) {
    REQUIRE(sqlite3_open(path.c_str(), &db_) == SQLITE_OK);
    sqlite3_busy_timeout(db_, 5000);
  }
  ~OtherConnection() { sqlite3_close(db_); }
  OtherConnection(const OtherConnection&) = delete;
  OtherConnection& operator=(const OtherConnection&) = delete;

  void exec(const std::string& sql) {
    char* error = nullptr;
    const int rc = sqlite3_exec(db_, sql.c_str(), nullptr, nullptr, &error);
    INFO((error != nullptr ? error : ""));
    sqlite3_free(error);
    REQUIRE(rc == SQLITE_OK);
  }

  sqlite3* handle() { return db_; }

 private:
  sqlite3* db_ = nullptr;
};

}  // namespace gantry::testing
