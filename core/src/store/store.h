#pragma once
/// Store: the one SQLite file ($DATA_DIR/gantry.db) in WAL mode, with versioned migrations.
/// Only core/src/store/ includes Poco/Data; other areas use the repositories declared here.

#include <cstdint>
#include <memory>
#include <mutex>
#include <string>

#include "gantry/status.h"

namespace gantry::store {

struct Db;  // Poco::Data session, private to store/

/// How a process uses the database. Only its owner (the daemon, or an operator command
/// when no instance is running) migrates: an operator command must not change the schema
/// under a live, possibly older, daemon.
enum class Access {
  kOwner,     ///< WAL set up and migrations run
  kNoSchema,  ///< reads and writes rows; the schema is left as it is
  kReadOnly,  ///< kNoSchema, and every write is refused (PRAGMA query_only)
};

/// When open runs PRAGMA quick_check, which reads the whole file.
enum class Check {
  /// Only when the last owner did not stop cleanly (killed, crashed, power lost) or the file
  /// is new: its clean-stop mark (kv store/clean_stop) is missing.
  kAfterUncleanStop,
  kAlways,  ///< gantry doctor
};

/// Owns the database connection. Thread-safe: every repository call takes the store's lock.
class Store {
 public:
  /// Opens (creating if absent) the database at path and runs PRAGMA quick_check as check
  /// says; kOwner also runs the migrations and removes the clean-stop mark (durably, so a
  /// crash or power loss later in the run means a check at the next open). A corrupt file
  /// is reported as an error naming it and is left untouched; a schema newer than this
  /// gantry knows is refused in every mode.
  static Result<std::unique_ptr<Store>> open(const std::string& path,
                                             Access access = Access::kOwner,
                                             Check check = Check::kAfterUncleanStop);
  /// kOwner: writes the clean-stop mark as the connection's last write (every repository
  /// using the store is gone by then). A mark that cannot be written means a check next time.
  ~Store();
  Store(const Store&) = delete;
  Store& operator=(const Store&) = delete;

  /// The schema version after migrations (PRAGMA user_version).
  int schemaVersion();
  /// For operator commands, which never create the schema: an error naming the file when it
  /// has none (a new file, or not gantry's), instead of "no such table" from the first query.
  Status requireSchema();
  /// For a process going idle: copies the write-ahead log back into the database once it has
  /// grown past SQLite's usual mark (the owner's commits leave that for now, see
  /// store/wal_checkpoints.h). True when it copied; always false but for the owner.
  bool checkpointIfDue();
  /// Frees the page cache's unused pages, for a process going idle: they stay allocated,
  /// and dirty in the heap, until the cache is shrunk.
  void releaseMemory();
  const std::string& path() const { return path_; }

  /// For repositories in store/ only.
  Db& db() { return *db_; }
  std::mutex& mutex() { return mutex_; }

 private:
  Store(std::string path, std::unique_ptr<Db> db, Access access);
  std::string path_;
  Access access_;
  std::unique_ptr<Db> db_;
  std::mutex mutex_;
};

/// Milliseconds since the Unix epoch: the unit of every timestamp column.
int64_t nowMs();

}  // namespace gantry::store
