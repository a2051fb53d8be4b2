#pragma once
/// Cron schedules (DESIGN 7): parsing and next-run computation. Pure: no I/O, no clock.
///
/// Accepted forms:
///   5-field cron  "minute hour day-of-month month day-of-week" with lists, ranges, steps
///                 (`*/n`, `a-b/n`, `a/n`), month names jan-dec, weekday names sun-sat (0 and 7
///                 are both Sunday). When both day fields are restricted (neither starts with
///                 `*`) a day matches if EITHER matches, as in classic cron.
///   macros        @hourly @daily @midnight @weekly @monthly @yearly @annually
///   @every <d>    a fixed period such as 15m, 2h, 1h30m, 1d (units d h m s; minimum 1 minute),
///                 measured in absolute time from an anchor (the previous slot or creation)
///   one-shot      a local time "YYYY-MM-DDTHH:MM" (a space instead of T is accepted)
///
/// Local times are evaluated in the configured zone. A local time that falls in a DST gap runs
/// once, at the first instant after the gap; a local time repeated by a fall-back runs once,
/// at its first occurrence. Schedules whose hour field starts with '*' (@hourly, "*/15 * * * *")
/// follow elapsed time instead and also run in the second pass of a repeated hour.

#include <cctz/civil_time.h>
#include <cctz/time_zone.h>

#include <bitset>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "gantry/status.h"

namespace gantry::cron {

enum class ScheduleKind { kCron, kEvery, kOnce };

/// The matching sets of a 5-field schedule; bit i set means value i matches.
struct CronFields {
  std::bitset<60> minutes;
  std::bitset<24> hours;
  std::bitset<32> days_of_month;  ///< bits 1-31
  std::bitset<13> months;         ///< bits 1-12
  std::bitset<7> days_of_week;    ///< 0 = Sunday
  bool hour_star = false;         ///< hour field started with '*' (runs in both passes of a
                                  ///< repeated hour, like classic cron's wildcard jobs)
  bool dom_star = false;          ///< day-of-month field started with '*'
  bool dow_star = false;          ///< day-of-week field started with '*'
};

/// A parsed schedule. `text` is the trimmed source, which is what the store keeps.
struct Schedule {
  ScheduleKind kind = ScheduleKind::kCron;
  std::string text;
  CronFields fields;          ///< kCron
  int64_t every_ms = 0;       ///< kEvery
  cctz::civil_minute once{};  ///< kOnce, local time in the configured zone
};

/// The longest period a schedule or a watch repeats on: 366 days.
inline constexpr int64_t kMaxPeriodMs = 366LL * 24 * 3600 * 1000;

/// A duration written in units, "90s", "15m", "1h30m", "1d" (d, h, m, s, either case): its
/// length in ms, at most kMaxPeriodMs + 1 (anything longer reads as that, for the caller to
/// refuse). An error saying what is wrong with spec, without quoting it.
Result<int64_t> parseDurationMs(std::string_view spec);

/// Parses a schedule. Failures are errors whose message names the field, the value and the
/// allowed range, quoting the schedule, so a model can correct it.
Result<Schedule> parseSchedule(std::string_view text);

/// The first run strictly after `after_ms` (Unix ms), or nullopt when there is none (a
/// one-shot whose time has passed). `anchor_ms` is used by @every only: runs fall on
/// anchor + k*period (k >= 1). Cron and one-shot runs fall on whole local minutes in `tz`.
std::optional<int64_t> nextRunMs(const Schedule& schedule, int64_t after_ms,
                                 const cctz::time_zone& tz, int64_t anchor_ms);

/// The absolute instant of a local minute under the DST rules above.
int64_t resolveLocalMinute(const cctz::civil_minute& local, const cctz::time_zone& tz);

/// Loads an IANA zone from the system tz database; the error names CRON_TZ.
Result<cctz::time_zone> loadZone(const std::string& name);

/// "2026-12-01T07:30" in tz.
std::string formatLocal(int64_t ms, const cctz::time_zone& tz);

}  // namespace gantry::cron
