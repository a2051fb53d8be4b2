#include "store/prompt_budget_repo.h"

#include <Poco/Data/Session.h>
#include <Poco/Tuple.h>

#include "store/db.h"

using Poco::Data::Keywords::into;
using Poco::Data::Keywords::now;
using Poco::Data::Keywords::use;

namespace gantry::store {

Status PromptBudgetRepo::save(const std::string& chat_id, const std::vector<PromptPart>& parts,
                              int64_t at) {
  return locked(store_, "prompt budget", "save", [&](Poco::Data::Session&) -> Status {
    auto& cache = store_.db().prepared;
    Transaction transaction(store_.db());
    Query(cache, "DELETE FROM prompt_budget WHERE chat_id = ?").bind(chat_id).run();
    for (std::size_t i = 0; i < parts.size(); ++i) {
      Query insert(cache,
                   "INSERT INTO prompt_budget(chat_id, position, part, est_tokens, detail, at) "
                   "VALUES (?, ?, ?, ?, ?, ?)");
      insert.bind(chat_id).bind(static_cast<int64_t>(i)).bind(parts[i].part);
      insert.bind(static_cast<int64_t>(parts[i].est_tokens)).bind(parts[i].detail).bind(at).run();
    }
    transaction.commit();
    return Status::ok();
  });
}

Result<std::optional<StoredBudget>> PromptBudgetRepo::load(const std::string& chat_id) {
  return locked(store_, "prompt budget", "load",
                [&](Poco::Data::Session& session) -> Result<std::optional<StoredBudget>> {
                  std::string chat = chat_id;
                  if (chat.empty()) {
                    std::vector<std::string> latest;
                    session << "SELECT chat_id FROM prompt_budget ORDER BY at DESC LIMIT 1",
                        into(latest), now;
                    if (latest.empty()) return std::optional<StoredBudget>();
                    chat = latest.front();
                  }
                  std::vector<Poco::Tuple<std::string, Poco::Int64, std::string, Poco::Int64>> rows;
                  session << "SELECT part, est_tokens, detail, at FROM prompt_budget "
                             "WHERE chat_id = ? ORDER BY position",
                      use(chat), into(rows), now;
                  if (rows.empty()) return std::optional<StoredBudget>();
                  StoredBudget budget{chat, rows.front().get<3>(), {}};
                  for (const auto& row : rows) {
                    budget.parts.push_back(
                        {row.get<0>(), static_cast<std::size_t>(row.get<1>()), row.get<2>()});
                  }
                  return std::optional<StoredBudget>(std::move(budget));
                });
}

}  // namespace gantry::store
