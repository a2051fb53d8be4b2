#include "store/maintenance.h"

#include <Poco/Data/Session.h>

#include "store/db.h"

using Poco::Data::Keywords::now;

namespace gantry::store {

Status checkFts(Store& store) {
  try {
    std::lock_guard lock(store.mutex());
    store.db().session << "INSERT INTO memory_fts(memory_fts, rank) VALUES ('integrity-check', 1)",
        now;
    return Status::ok();
  } catch (const Poco::Exception& e) {
    return Status::error("memory_fts does not match the memory table: " + e.displayText());
  }
}

Status rebuildFts(Store& store) {
  try {
    std::lock_guard lock(store.mutex());
    store.db().session << "INSERT INTO memory_fts(memory_fts) VALUES ('rebuild')", now;
    return Status::ok();
  } catch (const Poco::Exception& e) {
    return Status::error("store: rebuilding memory_fts: " + e.displayText());
  }
}

}  // namespace gantry::store
