#include <algorithm>
#include <chrono>
#include <cstdint>

#include "cron/schedule.h"

namespace gantry::cron {
namespace {

using Seconds = cctz::time_point<cctz::seconds>;

// Every cron schedule that can run at all runs within 8 years (29 February after a skipped
// leap year such as 2100); a little more is searched.
constexpr int kSearchDays = 9 * 366;

int64_t toMs(const Seconds& tp) { return tp.time_since_epoch().count() * 1000; }

Seconds fromMs(int64_t ms) {
  // Floor division, so instants before the epoch round down too.
  int64_t s = ms / 1000 - ((ms % 1000 < 0) ? 1 : 0);
  return Seconds(cctz::seconds(s));
}

int cronWeekday(const cctz::civil_day& day) {
  // cctz counts from Monday; cron from Sunday.
  return (static_cast<int>(cctz::get_weekday(day)) + 1) % 7;
}

bool dayMatches(const CronFields& f, const cctz::civil_day& day) {
  if (!f.months[day.month()]) return false;
  bool dom = f.days_of_month[day.day()];
  bool dow = f.days_of_week[cronWeekday(day)];
  // Classic cron: when both fields are restricted either may match; when one starts with
  // '*' both must (a plain '*' matches every day, so that reduces to the other field).
  if (f.dom_star || f.dow_star) return dom && dow;
  return dom || dow;
}

// The first run in `day` at or after local minute `from`, strictly after `after`.
std::optional<int64_t> firstInDay(const CronFields& f, const cctz::civil_day& day,
                                  const cctz::civil_minute& from, int64_t after_ms,
                                  const cctz::time_zone& tz) {
  for (int hour = 0; hour < 24; ++hour) {
    if (!f.hours[hour]) continue;
    for (int minute = 0; minute < 60; ++minute) {
      if (!f.minutes[minute]) continue;
      cctz::civil_minute local(day.year(), day.month(), day.day(), hour, minute);
      if (local < from) continue;
      // In the second pass of a repeated hour a local time resolves to its first
      // occurrence, which lies in the past: skipping it is what makes it run once.
      int64_t at = resolveLocalMinute(local, tz);
      if (at > after_ms) return at;
    }
  }
  return std::nullopt;
}

// Walks local days and times: each local time runs once (see resolveLocalMinute).
std::optional<int64_t> firstByLocalTime(const CronFields& f, int64_t after_ms,
                                        const cctz::time_zone& tz) {
  cctz::civil_minute from = cctz::civil_minute(cctz::convert(fromMs(after_ms), tz)) + 1;
  cctz::civil_day day(from);
  for (int i = 0; i < kSearchDays; ++i, ++day) {
    if (!dayMatches(f, day)) continue;
    if (std::optional<int64_t> at = firstInDay(f, day, from, after_ms, tz)) return at;
  }
  return std::nullopt;
}

bool instantMatches(const CronFields& f, const cctz::civil_second& local) {
  return f.minutes[local.minute()] && f.hours[local.hour()] &&
         dayMatches(f, cctz::civil_day(local));
}

// The first matching minute in [from, before) that lies in the second pass of the repeated
// hour of a fall-back transition.
std::optional<int64_t> firstInSecondPass(const CronFields& f,
                                         const cctz::time_zone::civil_transition& transition,
                                         Seconds from, int64_t before_ms,
                                         const cctz::time_zone& tz) {
  if (transition.to >= transition.from) return std::nullopt;  // a gap, not a repeat
  Seconds start = tz.lookup(transition.to).trans;
  Seconds end = start + cctz::seconds(transition.from - transition.to);
  for (Seconds at = std::max(start, from); at < end && toMs(at) < before_ms;
       at += cctz::seconds(60)) {
    if (instantMatches(f, cctz::convert(at, tz))) return toMs(at);
  }
  return std::nullopt;
}

// Hour-wildcard schedules also run in the second pass of a repeated hour: the fall-back that
// `after` lies in, or the next one.
std::optional<int64_t> secondPassRun(const CronFields& f, int64_t after_ms, int64_t before_ms,
                                     const cctz::time_zone& tz) {
  Seconds after = fromMs(after_ms);
  Seconds from = after - cctz::seconds(after.time_since_epoch().count() % 60) + cctz::seconds(60);
  cctz::time_zone::civil_transition transition;
  if (tz.prev_transition(after + cctz::seconds(1), &transition)) {
    if (auto at = firstInSecondPass(f, transition, from, before_ms, tz)) return at;
  }
  if (tz.next_transition(after, &transition)) {
    return firstInSecondPass(f, transition, from, before_ms, tz);
  }
  return std::nullopt;
}

std::optional<int64_t> nextCron(const CronFields& f, int64_t after_ms, const cctz::time_zone& tz) {
  std::optional<int64_t> at = firstByLocalTime(f, after_ms, tz);
  if (!f.hour_star) return at;
  std::optional<int64_t> repeat = secondPassRun(f, after_ms, at.value_or(INT64_MAX), tz);
  return repeat ? repeat : at;
}

int64_t nextEvery(int64_t period_ms, int64_t after_ms, int64_t anchor_ms) {
  if (after_ms < anchor_ms) return anchor_ms + period_ms;
  return anchor_ms + ((after_ms - anchor_ms) / period_ms + 1) * period_ms;
}

}  // namespace

int64_t resolveLocalMinute(const cctz::civil_minute& local, const cctz::time_zone& tz) {
  cctz::time_zone::civil_lookup found = tz.lookup(cctz::civil_second(local));
  switch (found.kind) {
    case cctz::time_zone::civil_lookup::SKIPPED: return toMs(found.trans);  // after the gap
    case cctz::time_zone::civil_lookup::REPEATED:                           // first occurrence
    case cctz::time_zone::civil_lookup::UNIQUE: return toMs(found.pre);
  }
  return toMs(found.pre);
}

std::optional<int64_t> nextRunMs(const Schedule& schedule, int64_t after_ms,
                                 const cctz::time_zone& tz, int64_t anchor_ms) {
  switch (schedule.kind) {
    case ScheduleKind::kCron: return nextCron(schedule.fields, after_ms, tz);
    case ScheduleKind::kEvery: return nextEvery(schedule.every_ms, after_ms, anchor_ms);
    case ScheduleKind::kOnce: {
      int64_t at = resolveLocalMinute(schedule.once, tz);
      if (at > after_ms) return at;
      return std::nullopt;
    }
  }
  return std::nullopt;
}

Result<cctz::time_zone> loadZone(const std::string& name) {
  cctz::time_zone tz;
  if (name.empty() || !cctz::load_time_zone(name, &tz)) {
    return Status::error("CRON_TZ=\"" + name +
                         "\" is not a time zone of the system tz database (use an IANA name "
                         "such as Europe/Berlin or UTC; check that tzdata is installed)");
  }
  return tz;
}

std::string formatLocal(int64_t ms, const cctz::time_zone& tz) {
  return cctz::format("%Y-%m-%dT%H:%M", fromMs(ms), tz);
}

}  // namespace gantry::cron
