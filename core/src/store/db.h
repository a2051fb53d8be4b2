#pragma once
/// The Poco::Data session behind Store. Included by store/*.cpp only.

#include <Poco/Data/Session.h>

#include "store/store.h"

namespace gantry::store {

struct Db {
  explicit Db(Poco::Data::Session s) : session(std::move(s)) {}
  Poco::Data::Session session;
};

}  // namespace gantry::store
