#include "store/session_repo.h"

#include <Poco/Data/Session.h>
#include <Poco/Tuple.h>

#include "store/db.h"

using Poco::Data::Keywords::into;
using Poco::Data::Keywords::now;
using Poco::Data::Keywords::use;

namespace gantry::store {

Result<int64_t> SessionRepo::open(const std::string& chat_id) {
  return locked(store_, "session", "open", [&](Poco::Data::Session& session) -> Result<int64_t> {
    std::string chat = chat_id;
    Poco::Int64 at = nowMs(), id = 0;
    session << "INSERT INTO sessions(chat_id, created_at, updated_at) VALUES (?, ?, ?) "
               "ON CONFLICT(chat_id) DO NOTHING",
        use(chat), use(at), use(at), now;
    session << "SELECT id FROM sessions WHERE chat_id = ?", use(chat), into(id), now;
    return static_cast<int64_t>(id);
  });
}

Result<std::string> SessionRepo::summary(int64_t session_id) {
  return locked(store_, "session", "summary", [&](Poco::Data::Session&) -> Result<std::string> {
    Query select(store_.db().prepared, "SELECT summary FROM sessions WHERE id = ?");
    return select.bind(session_id).step() ? select.text(0) : std::string();
  });
}

Status SessionRepo::setSummary(int64_t session_id, const std::string& summary) {
  return locked(store_, "session", "set summary", [&](Poco::Data::Session& session) -> Status {
    std::string text = summary;
    Poco::Int64 id = session_id, at = nowMs();
    session << "UPDATE sessions SET summary = ?, updated_at = ? WHERE id = ?", use(text), use(at),
        use(id), now;
    return Status::ok();
  });
}

Result<std::vector<SessionSummary>> SessionRepo::recentSummaries(int64_t since_ms, int limit) {
  return locked(
      store_, "session", "recent summaries",
      [&](Poco::Data::Session& session) -> Result<std::vector<SessionSummary>> {
        std::vector<Poco::Tuple<Poco::Int64, std::string, std::string, Poco::Int64>> rows;
        Poco::Int64 since = since_ms;
        session << "SELECT id, chat_id, summary, updated_at FROM sessions "
                   "WHERE summary != '' AND updated_at > ? ORDER BY updated_at DESC LIMIT ?",
            use(since), use(limit), into(rows), now;
        std::vector<SessionSummary> out;
        out.reserve(rows.size());
        for (const auto& t : rows) out.push_back({t.get<0>(), t.get<1>(), t.get<2>(), t.get<3>()});
        return out;
      });
}

}  // namespace gantry::store
