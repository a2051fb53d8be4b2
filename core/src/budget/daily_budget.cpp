#include "budget/daily_budget.h"

#include <cctz/civil_time.h>

#include <charconv>
#include <chrono>

#include "cron/schedule.h"
#include "gantry/text/trim.h"
#include "log/log.h"
#include "store/kv_repo.h"
#include "store/usage_spend.h"

namespace gantry::budget {
namespace {

constexpr const char* kKv = "budget";

using Seconds = std::chrono::time_point<std::chrono::system_clock, std::chrono::seconds>;

cctz::civil_day dayOf(int64_t ms, const cctz::time_zone& tz) {
  return cctz::civil_day(cctz::convert(Seconds(std::chrono::seconds(ms / 1000)), tz));
}

// Midnight as cron resolves a local minute: a midnight a DST change skips is the first
// instant after it.
int64_t startOf(cctz::civil_day day, const cctz::time_zone& tz) {
  return cron::resolveLocalMinute(cctz::civil_minute(day), tz);
}

/// "YYYY-MM-DD N" → N when the date is day; 0 otherwise.
int64_t valueFor(const std::optional<std::string>& stored, const std::string& day) {
  if (!stored || stored->rfind(day + " ", 0) != 0) return 0;
  int64_t n = 0;
  const char* first = stored->data() + day.size() + 1;
  std::from_chars(first, stored->data() + stored->size(), n);
  return n;
}

/// "3h 12m", "45m", "less than a minute".
std::string untilText(int64_t ms) {
  const int64_t minutes = ms / 60000;
  if (minutes < 1) return "less than a minute";
  const int64_t hours = minutes / 60;
  std::string text = hours > 0 ? std::to_string(hours) + "h " : "";
  return text + std::to_string(minutes % 60) + "m";
}

std::string resetText(const BudgetDay& day, const cron::Zone& zone, int64_t now_ms) {
  return "resets at midnight " + zone.name + ", in " + untilText(day.resets_at - now_ms);
}

std::string skippedText(const BudgetDay& day) {
  std::string text;
  for (const auto& [kind, n] : day.skipped) {
    text += (text.empty() ? "" : ", ") + kind + " " + std::to_string(n);
  }
  return text.empty() ? "" : "\nSkipped today: " + text + ".";
}

}  // namespace

std::string localDay(int64_t ms, const cctz::time_zone& tz) {
  return cron::formatLocal(ms, tz).substr(0, 10);  // YYYY-MM-DD of YYYY-MM-DDTHH:MM
}

int64_t nextMidnight(int64_t ms, const cctz::time_zone& tz) {
  return startOf(dayOf(ms, tz) + 1, tz);
}

DailyBudget::DailyBudget(store::Store& store, int64_t cap, cron::Zone zone, Clock clock)
    : store_(store),
      cap_(cap),
      zone_(std::move(zone)),
      clock_(clock ? std::move(clock) : Clock(store::nowMs)) {}

Status DailyBudget::load() {
  const int64_t now = clock_();
  std::lock_guard lock(mutex_);
  rollLocked(now);
  auto spent = store::tokensSince(store_, startOf(dayOf(now, zone_.tz), zone_.tz));
  if (!spent.isOk()) return spent.status();
  spent_ = spent.value();
  return Status::ok();
}

// A new day starts from nothing spent; what was raised or told is read back for it.
void DailyBudget::rollLocked(int64_t now) {
  std::string day = localDay(now, zone_.tz);
  if (day == day_) return;
  day_ = std::move(day);
  spent_ = 0;
  skipped_.clear();
  raised_ = 0;
  told_ = false;
  try {
    store::KvRepo kv(store_);
    raised_ = valueFor(kv.get(kKv, "raised"), day_);
    told_ = kv.get(kKv, "told") == day_;
  } catch (const std::exception& e) {
    log::warn("budget_state_unread", {{"error", e.what()}});
  }
}

BudgetDay DailyBudget::dayLocked(int64_t now) const {
  BudgetDay day;
  day.cap = cap_ > 0 ? cap_ + raised_ : 0;
  day.raised = raised_;
  day.spent = spent_;
  day.resets_at = nextMidnight(now, zone_.tz);
  day.skipped = skipped_;
  return day;
}

void DailyBudget::charge(int64_t tokens) {
  const int64_t now = clock_();
  std::lock_guard lock(mutex_);
  rollLocked(now);
  spent_ += tokens;
}

bool DailyBudget::reached() {
  if (cap_ <= 0) return false;
  return today().reached();
}

BudgetDay DailyBudget::today() {
  const int64_t now = clock_();
  std::lock_guard lock(mutex_);
  rollLocked(now);
  return dayLocked(now);
}

Result<BudgetDay> DailyBudget::raise(int64_t n) {
  if (cap_ <= 0) return Status::error("there is no daily cap (BUDGET_DAILY_TOKENS is 0)");
  const int64_t now = clock_();
  std::lock_guard lock(mutex_);
  rollLocked(now);
  const int64_t raised = raised_ + n;
  Status stored = store::KvRepo(store_).set(kKv, "raised", day_ + " " + std::to_string(raised));
  if (!stored.isOk()) return stored;
  raised_ = raised;
  log::info("budget_raised", {{"by", std::to_string(n)}, {"cap", std::to_string(cap_ + raised)}});
  return dayLocked(now);
}

void DailyBudget::skipped(const std::string& kind, const std::string& detail) {
  const int64_t now = clock_();
  std::lock_guard lock(mutex_);
  rollLocked(now);
  ++skipped_[kind];
  log::info("budget_skipped", {{"work", kind},
                               {"detail", detail},
                               {"spent", std::to_string(spent_)},
                               {"cap", std::to_string(cap_ + raised_)}});
}

bool DailyBudget::claimNotice() {
  const int64_t now = clock_();
  std::lock_guard lock(mutex_);
  rollLocked(now);
  if (told_) return false;
  told_ = true;
  if (Status s = store::KvRepo(store_).set(kKv, "told", day_); !s.isOk()) {
    log::warn("budget_notice_not_recorded", {{"error", s.message()}});
  }
  return true;
}

std::string capReachedLine(const BudgetDay& day, const cron::Zone& zone, int64_t now_ms) {
  return "Daily token cap reached: " + std::to_string(day.spent) + " of " +
         std::to_string(day.cap) + " tokens spent today; " + resetText(day, zone, now_ms) +
         ". Nothing more runs until then; /budget +N raises today's cap.";
}

std::string budgetText(const BudgetDay& day, const cron::Zone& zone, int64_t now_ms) {
  if (day.cap <= 0) {
    return "Today: " + std::to_string(day.spent) +
           " tokens spent; no daily cap (BUDGET_DAILY_TOKENS=0).";
  }
  std::string text =
      "Today: " + std::to_string(day.spent) + " of " + std::to_string(day.cap) + " tokens spent";
  if (day.raised > 0) text += " (cap raised by " + std::to_string(day.raised) + " today)";
  text += day.reached() ? "; the cap is reached" : "";
  return text + "; " + resetText(day, zone, now_ms) + "." + skippedText(day);
}

std::string budgetCommand(DailyBudget& budget, const std::string& message, int64_t now_ms) {
  const std::string text(text::trim(message));
  const auto space = text.find_first_of(" \t");
  const auto arg_at =
      space == std::string::npos ? text.size() : text.find_first_not_of(" \t", space);
  const std::string arg = arg_at == std::string::npos ? "" : text.substr(arg_at);
  if (arg.empty()) return budgetText(budget.today(), budget.zone(), now_ms);
  int64_t n = 0;
  const char* end = arg.data() + arg.size();
  auto parsed = arg[0] == '+' ? std::from_chars(arg.data() + 1, end, n) : std::from_chars_result{};
  if (arg[0] != '+' || parsed.ec != std::errc() || parsed.ptr != end || n <= 0) {
    return "Usage: /budget (today's spend and cap) or /budget +N (raise today's cap by N tokens)";
  }
  auto raised = budget.raise(n);
  if (!raised.isOk()) return "⚠️ " + raised.status().message() + ".";
  return "Raised today's cap by " + std::to_string(n) + ". " +
         budgetText(raised.value(), budget.zone(), now_ms);
}

}  // namespace gantry::budget
