#pragma once
/// The Poco::Data session behind Store. Included by store/*.cpp only.

#include <Poco/Data/SQLite/Utility.h>
#include <Poco/Data/Session.h>
#include <Poco/Exception.h>

#include <mutex>
#include <string>

#include "store/prepared.h"
#include "store/store.h"

namespace gantry::store {

struct Db {
  explicit Db(Poco::Data::Session s)
      : session(std::move(s)), prepared(Poco::Data::SQLite::Utility::dbHandle(session)) {}
  Poco::Data::Session session;
  PreparedCache prepared;  ///< finalized before the session closes (declared after it)
};

/// Runs fn(session) under the store lock, turning exceptions into an error that names the
/// area and the operation ("memory: search: …").
template <class Fn>
auto locked(Store& store, const char* area, const char* what, Fn&& fn)
    -> decltype(fn(store.db().session)) {
  try {
    std::lock_guard lock(store.mutex());
    return fn(store.db().session);
  } catch (const Poco::Exception& e) {
    return Status::error(std::string(area) + ": " + what + ": " + e.displayText() +
                         " (check the database with gantry doctor)");
  } catch (const std::exception& e) {
    return Status::error(std::string(area) + ": " + what + ": " + e.what());
  }
}

}  // namespace gantry::store
