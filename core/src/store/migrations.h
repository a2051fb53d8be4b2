#pragma once
/// The schema, as an ordered list of migrations. Migration i (1-based) brings the database
/// from user_version i-1 to i. Entries are only ever appended.

#include <string_view>
#include <vector>

namespace gantry::store {

const std::vector<std::string_view>& migrations();

}  // namespace gantry::store
