#include "store/message_search.h"

#include <Poco/Data/Session.h>
#include <Poco/Tuple.h>

#include "gantry/text/tsv_field.h"
#include "store/db.h"
#include "store/memory_repo.h"

using Poco::Data::Keywords::into;
using Poco::Data::Keywords::now;
using Poco::Data::Keywords::use;

namespace gantry::store {

Result<std::vector<MessageHit>> searchMessages(Store& store, std::string_view query, int limit) {
  std::string expression = ftsQuery(query);
  if (expression.empty() || limit <= 0) return std::vector<MessageHit>();
  return locked(
      store, "search", "messages",
      [&](Poco::Data::Session& session) -> Result<std::vector<MessageHit>> {
        std::vector<Poco::Tuple<Poco::Int64, Poco::Int64, std::string, std::string>> rows;
        session << "SELECT m.id, m.created_at, m.role, "
                   "snippet(messages_fts, 0, '[', ']', '...', 12) "
                   "FROM messages_fts JOIN messages m ON m.id = messages_fts.rowid "
                   "WHERE messages_fts MATCH ? ORDER BY rank LIMIT ?",
            use(expression), use(limit), into(rows), now;
        std::vector<MessageHit> hits;
        hits.reserve(rows.size());
        for (const auto& row : rows) {
          hits.push_back({row.get<0>(), row.get<1>(), row.get<2>(), text::tsvField(row.get<3>())});
        }
        return hits;
      });
}

}  // namespace gantry::store
