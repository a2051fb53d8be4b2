#pragma once
/// Where the daily token cap is enforced (DESIGN 7): before every model call (CappedProvider,
/// budget/capped_provider.h), before an owner's turn, a cron run or a watch's turn. Past the
/// cap, unattended work is skipped and recorded, and the owner is told once a day.

#include <functional>
#include <optional>
#include <string>

#include "budget/daily_budget.h"

namespace gantry::budget {

/// Thread-safe; the budget must outlive it.
class BudgetGate {
 public:
  /// Sends text to a chat; failures are the callee's to log.
  using Notify = std::function<void(const std::string& chat_id, const std::string& text)>;

  /// owner_chat: where a notice goes when the refused work has no chat of its own
  /// (consolidation, API tasks); "" tells those only in the log, and the next chat that
  /// meets the cap is told.
  BudgetGate(DailyBudget& budget, Notify notify, std::string owner_chat)
      : budget_(budget), notify_(std::move(notify)), owner_chat_(std::move(owner_chat)) {}

  /// Before an owner's turn: "" to go ahead, or the one line they get instead of a model
  /// call (which also counts as today's notice).
  std::string ownerTurn();
  /// Before unattended work of kind (cron, watch, consolidation, task) for chat_id ("" =
  /// none): nullopt to go ahead, or the refusal text after recording the skip and telling
  /// the owner (once a day).
  std::optional<std::string> unattended(const std::string& kind, const std::string& detail,
                                        const std::string& chat_id);

  DailyBudget& budget() { return budget_; }

 private:
  DailyBudget& budget_;
  Notify notify_;
  std::string owner_chat_;
};

}  // namespace gantry::budget
