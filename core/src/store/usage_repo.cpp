#include "store/usage_repo.h"

#include <Poco/Data/Session.h>
#include <Poco/Tuple.h>

#include "store/db.h"
#include "store/record_rows.h"

using Poco::Data::Keywords::into;
using Poco::Data::Keywords::now;
using Poco::Data::Keywords::use;

namespace gantry::store {

Status UsageRepo::record(const UsageRow& row, const std::string* model_outcome) {
  return locked(store_, "usage", "record", [&](Poco::Data::Session&) -> Status {
    Db& db = store_.db();
    Transaction transaction(db);
    if (model_outcome) writeModelOutcome(db, *model_outcome, nowMs());
    Query insert(db.prepared,
                 "INSERT INTO usage(at, model, prompt_tokens, completion_tokens, cached_tokens, "
                 "estimated, dur_ms, outcome) VALUES (?, ?, ?, ?, ?, ?, ?, ?)");
    insert.bind(row.at).bind(row.model).bind(row.prompt_tokens).bind(row.completion_tokens);
    insert.bind(row.cached_tokens).bind(int64_t{row.estimated ? 1 : 0}).bind(row.dur_ms);
    insert.bind(row.outcome).run();
    transaction.commit();
    return Status::ok();
  });
}

Result<std::vector<UsageDay>> UsageRepo::daily(int days, int64_t now_ms, bool by_model) {
  return locked(
      store_, "usage", "daily", [&](Poco::Data::Session& session) -> Result<std::vector<UsageDay>> {
        // Midnight UTC `days - 1` days ago: today counts as one day.
        Poco::Int64 since = (now_ms / 86400000 - (days - 1)) * 86400000;
        std::vector<Poco::Tuple<std::string, std::string, Poco::Int64, Poco::Int64, Poco::Int64,
                                Poco::Int64, Poco::Int64>>
            rows;
        const std::string model = by_model ? "model" : "''";
        session << "SELECT strftime('%Y-%m-%d', at / 1000, 'unixepoch') AS day, " + model +
                       " AS m, count(*), sum(prompt_tokens), sum(completion_tokens), "
                       "sum(cached_tokens), sum(estimated) FROM usage WHERE at >= ? "
                       "GROUP BY day, m ORDER BY day, m",
            use(since), into(rows), now;
        std::vector<UsageDay> out;
        out.reserve(rows.size());
        for (const auto& row : rows) {
          out.push_back({row.get<0>(), row.get<1>(), row.get<2>(), row.get<3>(), row.get<4>(),
                         row.get<5>(), row.get<6>()});
        }
        return out;
      });
}

}  // namespace gantry::store
