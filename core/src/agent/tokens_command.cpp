#include "agent/tokens_command.h"

#include "agent/prompt_budget.h"
#include "log/log.h"
#include "store/message_repo.h"
#include "store/prompt_budget_repo.h"

namespace gantry::agent {

int tokensCommand(store::Store& store, const std::vector<std::string>& args, std::ostream& out,
                  std::ostream& err) {
  if (args.size() > 1) return err << "usage: gantry tokens [CHAT_ID]\n", 2;
  auto budget = store::PromptBudgetRepo(store).load(args.empty() ? "" : args[0]);
  if (!budget.isOk()) return err << "gantry tokens: " << budget.status().message() << "\n", 1;
  if (!budget->has_value()) {
    err << "gantry tokens: no standing prompt recorded"
        << (args.empty() ? "" : " for chat " + args[0]) << " (one is recorded as a turn ends)\n";
    return 1;
  }
  const auto& recorded = budget->value();
  auto last = store::MessageRepo(store).lastTurn();
  out << "chat\t" << recorded.chat_id << '\t' << log::isoUtc(recorded.at) << '\n'
      << budgetTsv(recorded.parts, last.isOk() ? last->prompt_tokens : 0);
  return 0;
}

}  // namespace gantry::agent
