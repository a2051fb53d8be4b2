#include "store/maintenance.h"

#include <Poco/Data/Session.h>

#include "store/db.h"

using Poco::Data::Keywords::now;

namespace gantry::store {

namespace {

constexpr const char* kIndexes[][2] = {{"memory_fts", "the memory table"},
                                       {"messages_fts", "the user and assistant messages"}};

}  // namespace

Status checkFts(Store& store) {
  std::lock_guard lock(store.mutex());
  for (const auto& [index, table] : kIndexes) {
    try {
      store.db().session << "INSERT INTO " << index << "(" << index
                         << ", rank) VALUES ('integrity-check', 1)",
          now;
    } catch (const Poco::Exception& e) {
      return Status::error(std::string(index) + " does not match " + table + ": " +
                           e.displayText());
    }
  }
  return Status::ok();
}

Status rebuildFts(Store& store) {
  std::lock_guard lock(store.mutex());
  for (const auto& [index, table] : kIndexes) {
    try {
      store.db().session << "INSERT INTO " << index << "(" << index << ") VALUES ('rebuild')", now;
    } catch (const Poco::Exception& e) {
      return Status::error("store: rebuilding " + std::string(index) + ": " + e.displayText());
    }
  }
  return Status::ok();
}

}  // namespace gantry::store
