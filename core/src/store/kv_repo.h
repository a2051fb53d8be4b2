#pragma once
/// Small namespaced key/value state (module state such as a long-poll offset).

#include <optional>
#include <string>

#include "store/store.h"

namespace gantry::store {

class KvRepo {
 public:
  explicit KvRepo(Store& store) : store_(store) {}
  std::optional<std::string> get(const std::string& ns, const std::string& key);
  Status set(const std::string& ns, const std::string& key, const std::string& value);

 private:
  Store& store_;
};

}  // namespace gantry::store
