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
  return locked(store_, "prompt budget", "save", [&](Poco::Data::Session& session) -> Status {
    Transaction transaction(session);
    std::string chat = chat_id;
    Poco::Int64 when = at;
    session << "DELETE FROM prompt_budget WHERE chat_id = ?", use(chat), now;
    for (std::size_t i = 0; i < parts.size(); ++i) {
      Poco::Int64 position = static_cast<Poco::Int64>(i);
      auto tokens = static_cast<Poco::Int64>(parts[i].est_tokens);
      std::string part = parts[i].part, detail = parts[i].detail;
      session << "INSERT INTO prompt_budget(chat_id, position, part, est_tokens, detail, at) "
                 "VALUES (?, ?, ?, ?, ?, ?)",
          use(chat), use(position), use(part), use(tokens), use(detail), use(when), now;
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
