#include "store/kv_repo.h"

#include <Poco/Data/Session.h>

#include "store/db.h"

using Poco::Data::Keywords::into;
using Poco::Data::Keywords::now;
using Poco::Data::Keywords::use;

namespace gantry::store {

std::optional<std::string> KvRepo::get(const std::string& ns, const std::string& key) {
  std::lock_guard lock(store_.mutex());
  std::vector<std::string> values;
  std::string n = ns, k = key;
  store_.db().session << "SELECT value FROM kv WHERE namespace = ? AND key = ?", use(n), use(k),
      into(values), now;
  if (values.empty()) return std::nullopt;
  return values.front();
}

Status KvRepo::set(const std::string& ns, const std::string& key, const std::string& value) {
  try {
    std::lock_guard lock(store_.mutex());
    std::string n = ns, k = key, v = value;
    store_.db().session << "INSERT INTO kv(namespace, key, value) VALUES (?, ?, ?) "
                           "ON CONFLICT(namespace, key) DO UPDATE SET value = excluded.value",
        use(n), use(k), use(v), now;
    return Status::ok();
  } catch (const Poco::Exception& e) {
    return Status::error("store: kv set " + ns + "/" + key + ": " + e.displayText());
  }
}

}  // namespace gantry::store
