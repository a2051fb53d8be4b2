#pragma once
/// The Poco::Data session behind Store. Included by store/*.cpp only.

#include <Poco/Data/SQLite/SQLiteException.h>
#include <Poco/Data/SQLite/Utility.h>
#include <Poco/Data/Session.h>
#include <Poco/Exception.h>
#include <Poco/Nullable.h>

#include <cstdint>
#include <mutex>
#include <optional>
#include <string>

#include "store/memory_rank.h"
#include "store/prepared.h"
#include "store/store.h"
#include "store/wal_checkpoints.h"

namespace gantry::store {

/// A nullable INTEGER column, as Poco binds it.
using NullableInt = Poco::Nullable<Poco::Int64>;

inline std::optional<int64_t> toOptional(const NullableInt& value) {
  if (value.isNull()) return std::nullopt;
  return value.value();
}

inline NullableInt toNullable(const std::optional<int64_t>& value) {
  return value ? NullableInt(*value) : NullableInt();
}

/// The rowid of the session's last INSERT. Caller holds the store's lock.
inline int64_t lastInsertId(Poco::Data::Session& session) {
  Poco::Int64 id = 0;
  session << "SELECT last_insert_rowid()", Poco::Data::Keywords::into(id),
      Poco::Data::Keywords::now;
  return id;
}

struct Db {
  explicit Db(Poco::Data::Session s)
      : session(std::move(s)), prepared(Poco::Data::SQLite::Utility::dbHandle(session)) {}
  Poco::Data::Session session;
  /// gantry_bm25, installed by Store::open: outlives the statements that call it (declared
  /// before them).
  MemoryRank memory_rank;
  PreparedCache prepared;  ///< finalized before the session closes (declared after it)
  WalCheckpoints wal;      ///< the owner's only (store/wal_checkpoints.h)
};

/// A transaction begun and ended with plain SQL on cached statements, rolled back on
/// destruction unless committed.
/// Not Poco::Data::Transaction: when SQLite rolls a transaction back by itself (a full disk,
/// an I/O error), Poco's ROLLBACK then fails, its session keeps believing a transaction is in
/// progress, and every later one is refused until the process restarts.
class Transaction {
 public:
  /// kWrite begins IMMEDIATE: the write lock is taken (waiting out another process's) before
  /// the first read, so a read-then-write transaction cannot fail at once because another
  /// process (the operator's CLI) wrote in between. kRead is one snapshot for several reads.
  enum class Kind { kWrite, kRead };
  explicit Transaction(Db& db, Kind kind = Kind::kWrite) : db_(db) {
    Query(db_.prepared, kind == Kind::kWrite ? "BEGIN IMMEDIATE" : "BEGIN").run();
  }
  ~Transaction() {
    if (done_) return;
    try {
      Query(db_.prepared, "ROLLBACK").run();
    } catch (const Poco::Exception&) {  // SQLite already rolled it back
    }
  }
  Transaction(const Transaction&) = delete;
  Transaction& operator=(const Transaction&) = delete;
  void commit() {
    Query(db_.prepared, "COMMIT").run();
    done_ = true;
  }

 private:
  Db& db_;
  bool done_ = false;
};

/// Runs fn(session) under the store lock, turning exceptions into an error that names the
/// area and the operation ("memory: search: …").
template <class Fn>
auto locked(Store& store, const char* area, const char* what, Fn&& fn)
    -> decltype(fn(store.db().session)) {
  try {
    std::lock_guard lock(store.mutex());
    return fn(store.db().session);
  } catch (const Poco::Data::SQLite::DatabaseFullException& e) {
    return Status::retry(std::string(area) + ": " + what + ": " + e.displayText() +
                         " (free space on the disk holding DATA_DIR)");
  } catch (const Poco::Exception& e) {
    return Status::error(std::string(area) + ": " + what + ": " + e.displayText() +
                         " (check the database with gantry doctor)");
  } catch (const std::exception& e) {
    return Status::error(std::string(area) + ": " + what + ": " + e.what());
  }
}

}  // namespace gantry::store
