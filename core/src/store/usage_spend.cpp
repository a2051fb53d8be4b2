#include "store/usage_spend.h"

#include <Poco/Data/Session.h>
#include <Poco/Nullable.h>

#include "store/db.h"

using Poco::Data::Keywords::into;
using Poco::Data::Keywords::now;
using Poco::Data::Keywords::use;

namespace gantry::store {

Result<int64_t> tokensSince(Store& store, int64_t since_ms) {
  return locked(store, "usage", "spend", [&](Poco::Data::Session& session) -> Result<int64_t> {
    Poco::Int64 since = since_ms;
    Poco::Nullable<Poco::Int64> total;
    session << "SELECT sum(prompt_tokens + completion_tokens) FROM usage WHERE at >= ?", use(since),
        into(total), now;
    return total.isNull() ? int64_t{0} : int64_t{total.value()};
  });
}

}  // namespace gantry::store
