#pragma once
/// Full-text search over the record's user and assistant messages (messages_fts; tool
/// payloads are never indexed). Backs `gantry search`.

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "store/store.h"

namespace gantry::store {

struct MessageHit {
  int64_t message_id = 0;
  int64_t created_at = 0;  ///< ms since the epoch
  std::string role;        ///< user | assistant
  std::string snippet;     ///< the matching passage, matches in [brackets], one line
};

/// The best matches for the words of query (any word; quoted, so FTS5 syntax in the query is
/// plain text), at most limit. An empty query matches nothing. Thread-safe.
Result<std::vector<MessageHit>> searchMessages(Store& store, std::string_view query, int limit);

}  // namespace gantry::store
