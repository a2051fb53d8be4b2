#pragma once
/// The daily token cap (BUDGET_DAILY_TOKENS): what every model call of the day has spent, the
/// day being midnight to midnight in CRON_TZ, against the cap and what /budget +N added.

#include <cstdint>
#include <functional>
#include <map>
#include <mutex>
#include <string>

#include "cron/cron_options.h"
#include "gantry/status.h"
#include "store/store.h"

namespace gantry::budget {

/// One day's figures.
struct BudgetDay {
  int64_t cap = 0;                         ///< BUDGET_DAILY_TOKENS plus today's raises; 0 = no cap
  int64_t raised = 0;                      ///< of cap, what /budget +N added today
  int64_t spent = 0;                       ///< prompt + completion tokens of today's model calls
  int64_t resets_at = 0;                   ///< ms: the next midnight in the zone
  std::map<std::string, int64_t> skipped;  ///< unattended work skipped today, by kind
  /// True when the next model call must not be made.
  bool reached() const { return cap > 0 && spent >= cap; }
};

/// Thread-safe. The raise and whether the owner was told are kept in the store (kv
/// "budget"), so a restart neither forgets a raise nor tells twice; the spend is loaded
/// from the usage record at load() and counted in memory from then on.
class DailyBudget {
 public:
  using Clock = std::function<int64_t()>;  ///< Unix ms

  /// cap 0: no cap (reached() is never true). The store must outlive it; clock defaults to
  /// the system clock.
  DailyBudget(store::Store& store, int64_t cap, cron::Zone zone, Clock clock = nullptr);

  /// Reads today's spend from the usage record; call once at boot, before any model call.
  Status load();
  /// Counts a model call's tokens (reported, or estimated) against today.
  void charge(int64_t tokens);
  /// True when a cap is set and today's spend has reached it.
  bool reached();
  /// Today's figures.
  BudgetDay today();
  /// /budget +N: raises today's cap by n (> 0); the new figures. An error when no cap is
  /// set or the store refused it.
  Result<BudgetDay> raise(int64_t n);
  /// Records one piece of unattended work skipped today (kind: cron, watch, consolidation,
  /// task) and logs it.
  void skipped(const std::string& kind, const std::string& detail);
  /// True once a day, for the caller that then tells the owner the cap is reached.
  bool claimNotice();

  int64_t configuredCap() const { return cap_; }
  const cron::Zone& zone() const { return zone_; }

 private:
  void rollLocked(int64_t now);
  BudgetDay dayLocked(int64_t now) const;

  store::Store& store_;
  const int64_t cap_;
  const cron::Zone zone_;
  Clock clock_;
  std::mutex mutex_;
  std::string day_;  ///< YYYY-MM-DD in the zone of the figures below
  int64_t spent_ = 0;
  int64_t raised_ = 0;
  bool told_ = false;
  std::map<std::string, int64_t> skipped_;
};

/// The local day (YYYY-MM-DD) of ms in the zone.
std::string localDay(int64_t ms, const cctz::time_zone& tz);
/// The first midnight in the zone after ms.
int64_t nextMidnight(int64_t ms, const cctz::time_zone& tz);

/// The one line the owner gets instead of a model call: the cap, today's spend, the reset.
std::string capReachedLine(const BudgetDay& day, const cron::Zone& zone, int64_t now_ms);
/// /budget: today's spend against the cap, the reset, what was skipped.
std::string budgetText(const BudgetDay& day, const cron::Zone& zone, int64_t now_ms);
/// Answers "/budget" or "/budget +N" (text: the whole message).
std::string budgetCommand(DailyBudget& budget, const std::string& text, int64_t now_ms);

}  // namespace gantry::budget
