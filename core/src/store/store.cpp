#include "store/store.h"

#include <Poco/Data/SQLite/Connector.h>
#include <Poco/Data/SQLite/Utility.h>
#include <sqlite3.h>

#include <chrono>
#include <filesystem>
#include <vector>

#include "log/log.h"
#include "store/db.h"
#include "store/migrations.h"

namespace gantry::store {
namespace {

sqlite3* handle(Db& db) { return Poco::Data::SQLite::Utility::dbHandle(db.session); }

Status exec(sqlite3* h, const std::string& sql) {
  char* err = nullptr;
  if (sqlite3_exec(h, sql.c_str(), nullptr, nullptr, &err) == SQLITE_OK) return Status::ok();
  std::string message = err ? err : sqlite3_errmsg(h);
  sqlite3_free(err);
  return Status::error(message);
}

int userVersion(sqlite3* h) {
  sqlite3_stmt* stmt = nullptr;
  int version = -1;
  if (sqlite3_prepare_v2(h, "PRAGMA user_version", -1, &stmt, nullptr) == SQLITE_OK &&
      sqlite3_step(stmt) == SQLITE_ROW) {
    version = sqlite3_column_int(stmt, 0);
  }
  sqlite3_finalize(stmt);
  return version;
}

// Reads without writing: a damaged file must be reported, never "repaired" by a reset.
Status quickCheck(sqlite3* h, const std::string& path) {
  sqlite3_stmt* stmt = nullptr;
  if (sqlite3_prepare_v2(h, "PRAGMA quick_check", -1, &stmt, nullptr) != SQLITE_OK) {
    return Status::error("store: " + path + " is not a readable SQLite database (" +
                         sqlite3_errmsg(h) + "); the file was left untouched");
  }
  std::string problems;
  int rc;
  while ((rc = sqlite3_step(stmt)) == SQLITE_ROW) {
    const char* row = reinterpret_cast<const char*>(sqlite3_column_text(stmt, 0));
    std::string text = row ? row : "";
    if (text != "ok") problems += (problems.empty() ? "" : "; ") + text;
  }
  if (rc != SQLITE_DONE && problems.empty()) problems = sqlite3_errmsg(h);
  sqlite3_finalize(stmt);
  if (problems.empty()) return Status::ok();
  return Status::error("store: " + path + " failed PRAGMA quick_check: " + problems +
                       " (the file was left untouched; restore a backup or run gantry doctor)");
}

constexpr const char* kCleanStopRow = "namespace = 'store' AND key = 'clean_stop'";

// A file without the kv table (new, or not gantry's) or one that cannot be read has no mark.
bool stoppedCleanly(sqlite3* h) {
  const std::string sql = std::string("SELECT 1 FROM kv WHERE ") + kCleanStopRow;
  sqlite3_stmt* stmt = nullptr;
  bool marked = sqlite3_prepare_v2(h, sql.c_str(), -1, &stmt, nullptr) == SQLITE_OK &&
                sqlite3_step(stmt) == SQLITE_ROW;
  sqlite3_finalize(stmt);
  return marked;
}

// Synced to disk (setUp relaxes synchronous afterwards): a mark that a power loss could bring
// back would skip the check after that very power loss.
Status clearCleanStop(sqlite3* h, const std::string& path) {
  Status s = exec(h, std::string("PRAGMA synchronous=FULL; DELETE FROM kv WHERE ") + kCleanStopRow);
  if (s.isOk()) return s;
  return Status::error("store: " + path + ": removing the clean-stop mark: " + s.message());
}

// The value is the stop's time (Unix ms), for whoever reads the kv table.
Status markCleanStop(sqlite3* h) {
  return exec(h, "INSERT INTO kv(namespace, key, value) VALUES ('store', 'clean_stop', '" +
                     std::to_string(nowMs()) +
                     "') ON CONFLICT(namespace, key) DO UPDATE SET value = excluded.value");
}

Status checkIfNeeded(sqlite3* h, const std::string& path, Access access, Check check) {
  const bool clean = stoppedCleanly(h);
  const bool owner = access == Access::kOwner;
  if (!clean || check == Check::kAlways) {
    // The daemon's start says why it reads the whole file; operator commands stay quiet.
    if (owner) {
      const char* reason = clean ? "asked" : userVersion(h) == 0 ? "new file" : "no clean stop";
      log::info("store_quick_check", {{"path", path}, {"reason", reason}});
    }
    if (Status s = quickCheck(h, path); !s.isOk()) return s;
  }
  return clean && owner ? clearCleanStop(h, path) : Status::ok();
}

Status checkNotNewer(sqlite3* h, const std::string& path) {
  int version = userVersion(h);
  if (version <= static_cast<int>(migrations().size())) return Status::ok();
  return Status::error("store: " + path + " has schema version " + std::to_string(version) +
                       ", newer than this gantry knows (" + std::to_string(migrations().size()) +
                       ")");
}

Status migrate(sqlite3* h, const std::string& path) {
  const auto& all = migrations();
  int version = userVersion(h);
  if (Status s = checkNotNewer(h, path); !s.isOk()) return s;
  for (int v = version; v < static_cast<int>(all.size()); ++v) {
    std::string sql = "BEGIN;\n" + std::string(all[v]) +
                      "\nPRAGMA user_version = " + std::to_string(v + 1) + ";\nCOMMIT;";
    if (Status s = exec(h, sql); !s.isOk()) {
      exec(h, "ROLLBACK");
      return Status::error("store: migration to schema " + std::to_string(v + 1) +
                           " failed: " + s.message());
    }
  }
  return Status::ok();
}

Status setUp(sqlite3* h, const std::string& path, Access access) {
  // Reads come from a memory map of the file: a recall's index pages and a turn's history
  // are then shared, clean page-cache pages instead of pread copies into a private cache.
  // The page cache holds only pages being written and the WAL's, so 256 KiB (SQLite's default
  // is 2 MiB) is enough, and bounds what every instance keeps resident.
  std::vector<const char*> pragmas{"PRAGMA foreign_keys=ON", "PRAGMA cache_size=-256",
                                   "PRAGMA mmap_size=268435456"};
  if (access == Access::kOwner) {
    pragmas.insert(pragmas.begin(), {"PRAGMA journal_mode=WAL", "PRAGMA synchronous=NORMAL"});
  }
  if (access == Access::kReadOnly) pragmas.push_back("PRAGMA query_only=ON");
  for (const char* pragma : pragmas) {
    if (Status s = exec(h, pragma); !s.isOk()) {
      return Status::error("store: " + path + ": " + pragma + ": " + s.message());
    }
  }
  return access == Access::kOwner ? migrate(h, path) : checkNotNewer(h, path);
}

}  // namespace

int64_t nowMs() {
  return std::chrono::duration_cast<std::chrono::milliseconds>(
             std::chrono::system_clock::now().time_since_epoch())
      .count();
}

Store::Store(std::string path, std::unique_ptr<Db> db, Access access)
    : path_(std::move(path)), access_(access), db_(std::move(db)) {}

Store::~Store() {
  if (access_ != Access::kOwner) return;
  std::lock_guard lock(mutex_);
  if (Status s = markCleanStop(handle(*db_)); !s.isOk()) {
    log::warn("store_clean_stop_not_marked", {{"path", path_}, {"error", s.message()}});
  }
}

Result<std::unique_ptr<Store>> Store::open(const std::string& path, Access access, Check check) {
  try {
    // No page-cache bulk allocation (taken whether used or not): with the memory map few
    // pages are ever cached.
    // Refused, harmlessly, once SQLite is initialised, so only the first open sets it.
    [[maybe_unused]] static const int no_bulk =
        sqlite3_config(SQLITE_CONFIG_PAGECACHE, nullptr, 0, 0);
    // A connection is only ever used under its Store's mutex, so SQLite's own lock around
    // every call only repeated it.
    [[maybe_unused]] static const int no_connection_mutex =
        sqlite3_config(SQLITE_CONFIG_MULTITHREAD);
    Poco::Data::SQLite::Connector::registerConnector();
    // Login timeout 0: Poco retries a failed sqlite3_open_v2 every 10 ms until it runs out
    // (60 s by default), and a file that cannot be opened now will not open by waiting.
    auto db = std::make_unique<Db>(Poco::Data::Session("SQLite", path, 0));
    sqlite3* h = handle(*db);
    sqlite3_busy_timeout(h, 5000);
    if (!db->memory_rank.install(h)) {
      return Status::error("store: cannot open " + path + ": this SQLite has no FTS5");
    }
    if (Status s = checkIfNeeded(h, path, access, check); !s.isOk()) return s;
    if (Status s = setUp(h, path, access); !s.isOk()) return s;
    if (access == Access::kOwner) deferCheckpoints(h, db->wal);
    return std::unique_ptr<Store>(new Store(path, std::move(db), access));
  } catch (const Poco::Exception& e) {
    return Status::error("store: cannot open " + path + ": " + e.displayText());
  }
}

int Store::schemaVersion() {
  std::lock_guard lock(mutex_);
  return userVersion(handle(*db_));
}

Status Store::requireSchema() {
  if (schemaVersion() > 0) return Status::ok();
  return Status::error("store: " + path_ +
                       " holds no gantry data yet (schema version 0): `gantry run` with this "
                       "DATA_DIR creates it");
}

bool Store::checkpointIfDue() {
  std::lock_guard lock(mutex_);
  return access_ == Access::kOwner && store::checkpointIfDue(handle(*db_), db_->wal);
}

void Store::releaseMemory() {
  std::lock_guard lock(mutex_);
  sqlite3_db_release_memory(handle(*db_));
}

}  // namespace gantry::store
