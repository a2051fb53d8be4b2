#include "cron/schedule.h"

#include <catch2/catch.hpp>

using gantry::cron::nextRunMs;
using gantry::cron::parseSchedule;
using gantry::cron::ScheduleKind;

namespace {

// "2026-03-08T10:00" or "2026-03-08T10:00:30" in UTC -> Unix ms.
int64_t utc(const std::string& text) {
  cctz::time_point<cctz::seconds> tp;
  const char* format = text.size() > 16 ? "%Y-%m-%dT%H:%M:%S" : "%Y-%m-%dT%H:%M";
  REQUIRE(cctz::parse(format, text, cctz::utc_time_zone(), &tp));
  return tp.time_since_epoch().count() * 1000;
}

std::string utcText(int64_t ms) { return gantry::cron::formatLocal(ms, cctz::utc_time_zone()); }

cctz::time_zone zone(const std::string& name) {
  auto tz = gantry::cron::loadZone(name);
  REQUIRE(tz.isOk());
  return tz.value();
}

/// The next run in UTC as text, or "none".
std::string next(const std::string& schedule, const std::string& tz, const std::string& after,
                 const std::string& anchor = "") {
  auto parsed = parseSchedule(schedule);
  INFO(parsed.status().message());
  REQUIRE(parsed.isOk());
  int64_t after_ms = utc(after);
  auto at = nextRunMs(parsed.value(), after_ms, zone(tz), anchor.empty() ? after_ms : utc(anchor));
  return at ? utcText(*at) : "none";
}

struct NextCase {
  const char* schedule;
  const char* tz;
  const char* after;     // UTC
  const char* expected;  // UTC
};

}  // namespace

TEST_CASE("5-field schedules give the known next run", "[cron][schedule]") {
  const NextCase cases[] = {
      {"* * * * *", "UTC", "2026-11-30T22:40:30", "2026-11-30T22:41"},
      {"*/15 * * * *", "UTC", "2026-11-30T22:40", "2026-11-30T22:45"},
      {"*/15 * * * *", "UTC", "2026-11-30T22:45", "2026-11-30T23:00"},  // strictly after
      {"0 9 * * *", "UTC", "2026-11-30T10:00", "2026-12-01T09:00"},
      {"30 7 * * 1-5", "UTC", "2026-12-04T08:00", "2026-12-07T07:30"},  // Fri -> Mon
      {"30 7 * * mon-fri", "UTC", "2026-12-04T08:00", "2026-12-07T07:30"},
      {"30 7 * * MON-FRI", "UTC", "2026-12-04T08:00", "2026-12-07T07:30"},
      {"0 0 * * 0", "UTC", "2026-11-30T00:00", "2026-12-06T00:00"},
      {"0 0 * * 7", "UTC", "2026-11-30T00:00", "2026-12-06T00:00"},  // 7 is Sunday too
      {"0 0 * * sun", "UTC", "2026-11-30T00:00", "2026-12-06T00:00"},
      {"0 0 * * 5-7", "UTC", "2026-12-05T12:00", "2026-12-06T00:00"},  // fri-sun
      {"0 12 1 jan *", "UTC", "2026-11-30T00:00", "2027-01-01T12:00"},
      {"0 12 1 JAN,Mar *", "UTC", "2027-01-31T12:00", "2027-03-01T12:00"},
      {"10-30/10 8 * * *", "UTC", "2026-11-30T08:15", "2026-11-30T08:20"},
      {"10-30/10 8 * * *", "UTC", "2026-11-30T08:30", "2026-12-01T08:10"},
      {"5/20 * * * *", "UTC", "2026-11-30T22:40", "2026-11-30T22:45"},
      {"0 6,18 * * *", "UTC", "2026-11-30T07:00", "2026-11-30T18:00"},
      {"0 0 31 * *", "UTC", "2026-11-01T00:00", "2026-12-31T00:00"},  // November has 30
      {"0 9 * * *", "Europe/Berlin", "2026-11-30T10:00", "2026-12-01T08:00"},
      {"0 9 * * *", "America/Los_Angeles", "2026-11-30T10:00", "2026-11-30T17:00"},
  };
  for (const auto& c : cases) {
    INFO(c.schedule << " in " << c.tz << " after " << c.after);
    CHECK(next(c.schedule, c.tz, c.after) == c.expected);
  }
}

TEST_CASE("day-of-month and day-of-week match either when both are restricted",
          "[cron][schedule]") {
  // The 13th or any Friday.
  CHECK(next("0 0 13 * 5", "UTC", "2026-11-30T00:00") == "2026-12-04T00:00");
  CHECK(next("0 0 13 * fri", "UTC", "2026-12-11T00:00") == "2026-12-13T00:00");
  // A day-of-month no month has still runs on the weekday.
  CHECK(next("0 0 30 2 1", "UTC", "2026-11-30T00:00") == "2027-02-01T00:00");
  // A field starting with '*' makes the other one a further restriction (both must match).
  CHECK(next("0 0 */10 * 5", "UTC", "2026-11-30T00:00") == "2026-12-11T00:00");
  CHECK(next("0 0 1 * *", "UTC", "2026-11-30T00:00") == "2026-12-01T00:00");
}

TEST_CASE("29 February runs only in leap years", "[cron][schedule]") {
  CHECK(next("0 0 29 2 *", "UTC", "2026-11-30T00:00") == "2028-02-29T00:00");
  CHECK(next("0 0 29 2 *", "UTC", "2028-02-29T00:00") == "2032-02-29T00:00");
  CHECK(next("0 0 29 2 *", "UTC", "2096-03-01T00:00") == "2104-02-29T00:00");  // 2100 is not
}

TEST_CASE("macros expand to their classic schedules", "[cron][schedule]") {
  const NextCase cases[] = {
      {"@hourly", "UTC", "2026-11-30T22:40", "2026-11-30T23:00"},
      {"@daily", "UTC", "2026-11-30T22:40", "2026-12-01T00:00"},
      {"@midnight", "UTC", "2026-11-30T22:40", "2026-12-01T00:00"},
      {"@weekly", "UTC", "2026-11-30T22:40", "2026-12-06T00:00"},
      {"@monthly", "UTC", "2026-11-30T22:40", "2026-12-01T00:00"},
      {"@yearly", "UTC", "2026-11-30T22:40", "2027-01-01T00:00"},
      {"@annually", "UTC", "2026-11-30T22:40", "2027-01-01T00:00"},
      {"@daily", "Europe/Berlin", "2026-11-30T22:40", "2026-11-30T23:00"},
  };
  for (const auto& c : cases) {
    INFO(c.schedule << " in " << c.tz << " after " << c.after);
    CHECK(next(c.schedule, c.tz, c.after) == c.expected);
  }
}

TEST_CASE("@every counts whole periods from its anchor in absolute time", "[cron][schedule]") {
  CHECK(next("@every 15m", "UTC", "2026-11-30T22:00", "2026-11-30T22:00") == "2026-11-30T22:15");
  CHECK(next("@every 15m", "UTC", "2026-11-30T22:40", "2026-11-30T22:00") == "2026-11-30T22:45");
  CHECK(next("@every 1h30m", "UTC", "2026-11-30T22:40", "2026-11-30T20:00") == "2026-11-30T23:00");
  CHECK(next("@every 2h", "UTC", "2026-11-30T22:00", "2026-11-30T22:00") == "2026-12-01T00:00");
  CHECK(next("@every 1d", "UTC", "2026-11-30T22:00", "2026-11-30T22:00") == "2026-12-01T22:00");
  // Absolute time: 24h across a spring-forward is 25 local hours later on the wall clock.
  CHECK(next("@every 24h", "Europe/Berlin", "2026-03-28T12:00", "2026-03-28T12:00") ==
        "2026-03-29T12:00");
  auto parsed = parseSchedule("@every 1h 30m");
  REQUIRE(parsed.isOk());
  CHECK(parsed->kind == ScheduleKind::kEvery);
  CHECK(parsed->every_ms == 90L * 60 * 1000);
}

TEST_CASE("a one-shot local time runs once in the configured zone", "[cron][schedule]") {
  CHECK(next("2026-12-01T09:00", "UTC", "2026-11-30T22:40") == "2026-12-01T09:00");
  CHECK(next("2026-12-01 09:00", "UTC", "2026-11-30T22:40") == "2026-12-01T09:00");
  CHECK(next("2026-12-01T09:00", "Europe/Berlin", "2026-11-30T22:40") == "2026-12-01T08:00");
  CHECK(next("2026-12-01T09:00", "UTC", "2026-12-01T09:00") == "none");
  CHECK(next("2026-03-08T02:30", "America/Los_Angeles", "2026-03-01T00:00") == "2026-03-08T10:00");
}

TEST_CASE("a local time in a spring-forward gap runs once, right after the gap",
          "[cron][schedule][dst]") {
  // Los Angeles 2026-03-08: 02:00 PST -> 03:00 PDT (10:00Z).
  CHECK(next("30 2 * * *", "America/Los_Angeles", "2026-03-08T08:00") == "2026-03-08T10:00");
  CHECK(next("30 2 * * *", "America/Los_Angeles", "2026-03-08T10:00") == "2026-03-09T09:30");
  // Every minute of the gap collapses to one run at 03:00.
  CHECK(next("* * * * *", "America/Los_Angeles", "2026-03-08T09:59") == "2026-03-08T10:00");
  CHECK(next("* * * * *", "America/Los_Angeles", "2026-03-08T10:00") == "2026-03-08T10:01");
  CHECK(next("0,30 2 * * *", "America/Los_Angeles", "2026-03-08T10:00") == "2026-03-09T09:00");
  // Berlin 2026-03-29: 02:00 CET -> 03:00 CEST (01:00Z).
  CHECK(next("30 2 * * *", "Europe/Berlin", "2026-03-28T23:00") == "2026-03-29T01:00");
  CHECK(next("30 2 * * *", "Europe/Berlin", "2026-03-29T01:00") == "2026-03-30T00:30");
  CHECK(next("0 3 * * *", "Europe/Berlin", "2026-03-28T23:00") == "2026-03-29T01:00");
}

TEST_CASE("a local time repeated by a fall-back runs once, at its first occurrence",
          "[cron][schedule][dst]") {
  // Los Angeles 2026-11-01: 01:00-01:59 happens in PDT (08:xxZ) and again in PST (09:xxZ).
  CHECK(next("30 1 * * *", "America/Los_Angeles", "2026-11-01T07:00") == "2026-11-01T08:30");
  CHECK(next("30 1 * * *", "America/Los_Angeles", "2026-11-01T08:30") == "2026-11-02T09:30");
  CHECK(next("30 1 * * *", "America/Los_Angeles", "2026-11-01T09:00") == "2026-11-02T09:30");
  // Berlin 2026-10-25: 02:00-02:59 in CEST (00:xxZ) and again in CET (01:xxZ).
  CHECK(next("30 2 * * *", "Europe/Berlin", "2026-10-24T22:00") == "2026-10-25T00:30");
  CHECK(next("30 2 * * *", "Europe/Berlin", "2026-10-25T00:30") == "2026-10-26T01:30");
  CHECK(next("0 3 * * *", "Europe/Berlin", "2026-10-25T00:30") == "2026-10-25T02:00");
  CHECK(next("2026-10-25T02:30", "Europe/Berlin", "2026-10-01T00:00") == "2026-10-25T00:30");
}

TEST_CASE("invalid schedules get a precise error", "[cron][schedule][errors]") {
  const std::pair<const char*, const char*> cases[] = {
      {"0 25 * * *", R"(cron: field 2 (hour) value 25 out of range 0-23 in "0 25 * * *")"},
      {"60 * * * *", R"(cron: field 1 (minute) value 60 out of range 0-59 in "60 * * * *")"},
      {"0 0 0 * *", R"(cron: field 3 (day-of-month) value 0 out of range 1-31 in "0 0 0 * *")"},
      {"0 0 * 13 *", R"(cron: field 4 (month) value 13 out of range 1-12 in "0 0 * 13 *")"},
      {"0 0 * * 8", R"(cron: field 5 (day-of-week) value 8 out of range 0-7 in "0 0 * * 8")"},
      {"99999999999999999999 * * * *",
       R"(cron: field 1 (minute) value 99999999999999999999 out of range 0-59 in "99999999999999999999 * * * *")"},
      {"0 0 * foo *",
       R"(cron: field 4 (month) value "foo" is not a number or month name (jan-dec) in "0 0 * foo *")"},
      {"0 0 * * funday",
       R"(cron: field 5 (day-of-week) value "funday" is not a number or weekday name (sun-sat) in "0 0 * * funday")"},
      {"x * * * *", R"(cron: field 1 (minute) value "x" is not a number in "x * * * *")"},
      {"-5 * * * *", R"(cron: field 1 (minute) has a range with a missing value in "-5 * * * *")"},
      {"0 0 L * *",
       R"(cron: field 3 (day-of-month) value "L" is not a number (L, W, # and ? are not supported) in "0 0 L * *")"},
      {"0 0 * * 5#3",
       R"(cron: field 5 (day-of-week) value "5#3" is not a number or weekday name (sun-sat) (L, W, # and ? are not supported) in "0 0 * * 5#3")"},
      {"*/0 * * * *", R"(cron: field 1 (minute) step 0 must be at least 1 in "*/0 * * * *")"},
      {"*/x * * * *", R"(cron: field 1 (minute) step "x" is not a number in "*/x * * * *")"},
      {"0 20-10 * * *",
       R"(cron: field 2 (hour) range 20-10 is reversed (the start must not exceed the end) in "0 20-10 * * *")"},
      {"0 1,,2 * * *", R"(cron: field 2 (hour) has an empty list item in "0 1,,2 * * *")"},
      {"0 1- * * *", R"(cron: field 2 (hour) has a range with a missing value in "0 1- * * *")"},
      {"0 0 * *",
       R"(cron: expected 5 fields (minute hour day-of-month month day-of-week), got 4 in "0 0 * *")"},
      {"0 0 0 * * *",
       R"(cron: expected 5 fields (minute hour day-of-month month day-of-week), got 6 in "0 0 0 * * *")"},
      {"0 0 30 2 *",
       R"(cron: "0 0 30 2 *" never runs: no selected month has the selected day-of-month)"},
      {"0 0 31 4,jun *",
       R"(cron: "0 0 31 4,jun *" never runs: no selected month has the selected day-of-month)"},
      {"@often",
       R"(cron: unknown schedule "@often"; use @hourly, @daily, @midnight, @weekly, @monthly, @yearly, @annually or @every <duration>)"},
      {"@daily 5",
       R"(cron: unknown schedule "@daily 5"; use @hourly, @daily, @midnight, @weekly, @monthly, @yearly, @annually or @every <duration>)"},
      {"@every",
       R"(cron: @every needs a duration in "@every" (use a duration such as 15m, 2h, 1h30m or 1d; minimum 1m))"},
      {"@every 30s",
       R"(cron: duration "30s" is shorter than 1 minute in "@every 30s" (use a duration such as 15m, 2h, 1h30m or 1d; minimum 1m))"},
      {"@every 5x",
       R"(cron: duration "5x" has unknown unit 'x' in "@every 5x" (use a duration such as 15m, 2h, 1h30m or 1d; minimum 1m))"},
      {"@every 15",
       R"(cron: duration "15" lacks a unit (d, h, m or s) in "@every 15" (use a duration such as 15m, 2h, 1h30m or 1d; minimum 1m))"},
      {"@every h",
       R"(cron: duration "h" is malformed in "@every h" (use a duration such as 15m, 2h, 1h30m or 1d; minimum 1m))"},
      {"@every 400d",
       R"(cron: duration "400d" is longer than 366 days in "@every 400d" (use a duration such as 15m, 2h, 1h30m or 1d; minimum 1m))"},
      {"2026-02-30T09:00",
       R"(cron: one-shot time "2026-02-30T09:00" is not a valid local date and time (expected YYYY-MM-DDTHH:MM, e.g. 2026-12-01T09:00))"},
      {"2026-12-01T24:00",
       R"(cron: one-shot time "2026-12-01T24:00" is not a valid local date and time (expected YYYY-MM-DDTHH:MM, e.g. 2026-12-01T09:00))"},
      {"2026-12-01T09:00:00",
       R"(cron: one-shot time "2026-12-01T09:00:00" is not a valid local date and time (expected YYYY-MM-DDTHH:MM, e.g. 2026-12-01T09:00))"},
      {"  ",
       R"(cron: empty schedule; use 5 fields (minute hour day-of-month month day-of-week) such as "30 7 * * 1-5", a macro such as @daily, @every 15m, or a local time such as 2026-12-01T09:00)"},
  };
  for (const auto& [schedule, message] : cases) {
    auto parsed = parseSchedule(schedule);
    INFO(schedule);
    REQUIRE(!parsed.isOk());
    CHECK(parsed.status().message() == message);
  }
}

TEST_CASE("a schedule keeps its trimmed text", "[cron][schedule]") {
  auto parsed = parseSchedule("  30 7 * * 1-5 \n");
  REQUIRE(parsed.isOk());
  CHECK(parsed->text == "30 7 * * 1-5");
  CHECK(parsed->kind == ScheduleKind::kCron);
}

TEST_CASE("an unknown CRON_TZ is an error naming CRON_TZ", "[cron][schedule]") {
  auto tz = gantry::cron::loadZone("Mars/Olympus_Mons");
  REQUIRE(!tz.isOk());
  CHECK(tz.status().message().find("CRON_TZ") != std::string::npos);
  CHECK(tz.status().message().find("Mars/Olympus_Mons") != std::string::npos);
  CHECK(gantry::cron::loadZone("Europe/Berlin").isOk());
}

TEST_CASE("hour-wildcard schedules also run in the second pass of a repeated hour",
          "[cron][schedule][dst]") {
  // Los Angeles 2026-11-01: 01:00 PDT (08:00Z), 01:00 PST (09:00Z), 02:00 PST (10:00Z).
  CHECK(next("0 * * * *", "America/Los_Angeles", "2026-11-01T08:00") == "2026-11-01T09:00");
  CHECK(next("0 * * * *", "America/Los_Angeles", "2026-11-01T09:00") == "2026-11-01T10:00");
  CHECK(next("*/30 * * * *", "America/Los_Angeles", "2026-11-01T08:45") == "2026-11-01T09:00");
  CHECK(next("*/30 * * * *", "America/Los_Angeles", "2026-11-01T09:00") == "2026-11-01T09:30");
  CHECK(next("*/30 * * * *", "America/Los_Angeles", "2026-11-01T09:30") == "2026-11-01T10:00");
  // Berlin 2026-10-25: 02:00 CEST (00:00Z), 02:00 CET (01:00Z), 03:00 CET (02:00Z).
  CHECK(next("@hourly", "Europe/Berlin", "2026-10-25T00:00") == "2026-10-25T01:00");
  CHECK(next("@hourly", "Europe/Berlin", "2026-10-25T01:00") == "2026-10-25T02:00");
  // A wildcard hour with a fixed day still needs the day to match.
  CHECK(next("0 * 25 10 *", "Europe/Berlin", "2026-10-25T00:00") == "2026-10-25T01:00");
  CHECK(next("0 * 24 10 *", "Europe/Berlin", "2026-10-24T21:30") == "2027-10-23T22:00");
  // Spring forward: the gap's hour runs once, at 03:00 CEST (01:00Z).
  CHECK(next("@hourly", "Europe/Berlin", "2026-03-29T00:00") == "2026-03-29T01:00");
  CHECK(next("@hourly", "Europe/Berlin", "2026-03-29T01:00") == "2026-03-29T02:00");
}
