#include "store/prompt_budget_repo.h"

#include <Poco/Data/Session.h>
#include <Poco/Tuple.h>

#include "store/db.h"

using Poco::Data::Keywords::into;
using Poco::Data::Keywords::now;
using Poco::Data::Keywords::use;

namespace gantry::store {

namespace {

std::vector<PromptPart> storedParts(Db& db, const std::string& chat_id) {
  Query select(db.prepared,
               "SELECT part, est_tokens, detail FROM prompt_budget WHERE chat_id = ? "
               "ORDER BY position");
  select.bind(chat_id);
  std::vector<PromptPart> parts;
  while (select.step()) {
    parts.push_back({select.text(0), static_cast<std::size_t>(select.integer(1)), select.text(2)});
  }
  return parts;
}

bool samePart(const PromptPart& a, const PromptPart& b) {
  return a.part == b.part && a.est_tokens == b.est_tokens && a.detail == b.detail;
}

}  // namespace

// Only the parts that changed are written (a turn changes the history's and the total's),
// and the first, whose `at` is the budget's, instead of deleting and inserting every row.
void writePromptBudget(Db& db, const StoredBudget& budget) {
  const auto stored = storedParts(db, budget.chat_id);
  const auto count = budget.parts.size();
  if (stored.size() > count) {
    Query(db.prepared, "DELETE FROM prompt_budget WHERE chat_id = ? AND position >= ?")
        .bind(budget.chat_id)
        .bind(static_cast<int64_t>(count))
        .run();
  }
  for (std::size_t i = 0; i < count; ++i) {
    const PromptPart& part = budget.parts[i];
    if (i > 0 && i < stored.size() && samePart(stored[i], part)) continue;
    Query upsert(db.prepared,
                 "INSERT INTO prompt_budget(chat_id, position, part, est_tokens, detail, at) "
                 "VALUES (?, ?, ?, ?, ?, ?) ON CONFLICT(chat_id, position) DO UPDATE SET "
                 "part = excluded.part, est_tokens = excluded.est_tokens, "
                 "detail = excluded.detail, at = excluded.at");
    upsert.bind(budget.chat_id).bind(static_cast<int64_t>(i)).bind(part.part);
    upsert.bind(static_cast<int64_t>(part.est_tokens)).bind(part.detail).bind(budget.at).run();
  }
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
