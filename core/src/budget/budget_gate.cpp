#include "budget/budget_gate.h"

#include "store/store.h"

namespace gantry::budget {

std::string BudgetGate::ownerTurn() {
  const BudgetDay day = budget_.today();
  if (!day.reached()) return "";
  budget_.claimNotice();  // the line says all the notice would
  return capReachedLine(day, budget_.zone(), store::nowMs());
}

std::optional<std::string> BudgetGate::unattended(const std::string& kind,
                                                  const std::string& detail,
                                                  const std::string& chat_id) {
  const BudgetDay day = budget_.today();
  if (!day.reached()) return std::nullopt;
  budget_.skipped(kind, detail);
  std::string line = capReachedLine(day, budget_.zone(), store::nowMs());
  const std::string& chat = chat_id.empty() ? owner_chat_ : chat_id;
  if (!chat.empty() && notify_ && budget_.claimNotice()) {
    notify_(chat, "⚠️ " + line + " Cron jobs, watches and memory consolidation are skipped.");
  }
  return line;
}

}  // namespace gantry::budget
