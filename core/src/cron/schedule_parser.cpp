#include <algorithm>
#include <array>
#include <cctype>
#include <charconv>
#include <vector>

#include "cron/schedule.h"
#include "gantry/text/trim.h"

namespace gantry::cron {
namespace {

constexpr int64_t kMinuteMs = 60'000;
constexpr int64_t kHourMs = 60 * kMinuteMs;
constexpr int64_t kDayMs = 24 * kHourMs;

constexpr std::array<std::string_view, 12> kMonthNames = {"jan", "feb", "mar", "apr", "may", "jun",
                                                          "jul", "aug", "sep", "oct", "nov", "dec"};
constexpr std::array<std::string_view, 7> kDayNames = {"sun", "mon", "tue", "wed",
                                                       "thu", "fri", "sat"};

/// One of the five fields: its position, name, bounds, and the names it accepts.
struct FieldSpec {
  int position;
  std::string_view name;
  int min;
  int max;
  const std::string_view* names;  ///< names[i] stands for min + i; null when none
  std::size_t name_count;
  std::string_view name_hint;  ///< e.g. "month name (jan-dec)"
};

const std::array<FieldSpec, 5> kFields = {{
    {1, "minute", 0, 59, nullptr, 0, ""},
    {2, "hour", 0, 23, nullptr, 0, ""},
    {3, "day-of-month", 1, 31, nullptr, 0, ""},
    {4, "month", 1, 12, kMonthNames.data(), kMonthNames.size(), "month name (jan-dec)"},
    // 7 is accepted as a second Sunday and folded onto 0.
    {5, "day-of-week", 0, 7, kDayNames.data(), kDayNames.size(), "weekday name (sun-sat)"},
}};

std::string lower(std::string_view text) {
  std::string out(text);
  for (char& c : out) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return out;
}

std::vector<std::string_view> split(std::string_view text, char sep) {
  std::vector<std::string_view> parts;
  std::size_t start = 0;
  while (true) {
    std::size_t pos = text.find(sep, start);
    parts.push_back(text.substr(start, pos - start));
    if (pos == std::string_view::npos) return parts;
    start = pos + 1;
  }
}

std::vector<std::string> splitWhitespace(std::string_view text) {
  std::vector<std::string> words;
  std::string word;
  for (char c : text) {
    if (std::isspace(static_cast<unsigned char>(c))) {
      if (!word.empty()) words.push_back(std::move(word));
      word.clear();
    } else {
      word += c;
    }
  }
  if (!word.empty()) words.push_back(std::move(word));
  return words;
}

/// Digits only, no sign; nullopt otherwise. Values too large for int saturate, so they are
/// reported as out of range rather than as non-numbers.
std::optional<int64_t> parseNumber(std::string_view text) {
  if (text.empty() ||
      !std::all_of(text.begin(), text.end(), [](unsigned char c) { return std::isdigit(c); })) {
    return std::nullopt;
  }
  int64_t value = 0;
  auto [ptr, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (ec == std::errc::result_out_of_range) return INT64_MAX;
  return value;
}

/// Parses one field into a bit mask (bit i = value i matches).
class FieldParser {
 public:
  FieldParser(const FieldSpec& spec, std::string_view schedule)
      : spec_(spec), schedule_(schedule) {}

  Result<uint64_t> parse(std::string_view field) const {
    uint64_t mask = 0;
    for (std::string_view item : split(field, ',')) {
      if (item.empty()) return error("has an empty list item");
      Result<uint64_t> bits = parseItem(item);
      if (!bits.isOk()) return bits.status();
      mask |= bits.value();
    }
    return mask;
  }

 private:
  Status error(const std::string& what) const {
    return Status::error("cron: field " + std::to_string(spec_.position) + " (" +
                         std::string(spec_.name) + ") " + what + " in \"" + std::string(schedule_) +
                         "\"");
  }

  std::string rangeText() const {
    return std::to_string(spec_.min) + "-" + std::to_string(spec_.max);
  }

  // item = ("*" | value | value "-" value) ["/" step]
  Result<uint64_t> parseItem(std::string_view item) const {
    std::size_t slash = item.find('/');
    std::string_view range = item.substr(0, slash);
    int step = 1;
    if (slash != std::string_view::npos) {
      Result<int> s = parseStep(item.substr(slash + 1));
      if (!s.isOk()) return s.status();
      step = s.value();
    }
    Result<std::pair<int, int>> bounds = parseRange(range, slash != std::string_view::npos);
    if (!bounds.isOk()) return bounds.status();
    uint64_t mask = 0;
    for (int v = bounds.value().first; v <= bounds.value().second; v += step) {
      mask |= uint64_t{1} << v;
    }
    return mask;
  }

  Result<int> parseStep(std::string_view text) const {
    std::optional<int64_t> step = parseNumber(text);
    if (!step) return error("step \"" + std::string(text) + "\" is not a number");
    if (*step < 1) return error("step 0 must be at least 1");
    return static_cast<int>(std::min<int64_t>(*step, 1000));
  }

  // A single value followed by a step ("5/15") means value-max, as in most crons.
  Result<std::pair<int, int>> parseRange(std::string_view range, bool stepped) const {
    if (range == "*") return std::pair{spec_.min, spec_.max};
    std::size_t dash = range.find('-');
    Result<int> first = parseValue(range.substr(0, dash));
    if (!first.isOk()) return first.status();
    if (dash == std::string_view::npos) {
      return std::pair{first.value(), stepped ? spec_.max : first.value()};
    }
    Result<int> last = parseValue(range.substr(dash + 1));
    if (!last.isOk()) return last.status();
    if (first.value() > last.value()) {
      return error("range " + std::string(range) +
                   " is reversed (the start must not exceed the end)");
    }
    return std::pair{first.value(), last.value()};
  }

  Result<int> parseValue(std::string_view text) const {
    if (text.empty()) return error("has a range with a missing value");
    if (std::optional<int64_t> n = parseNumber(text)) {
      if (*n < spec_.min || *n > spec_.max) {
        return error("value " + std::string(text) + " out of range " + rangeText());
      }
      return static_cast<int>(*n);
    }
    std::string name = lower(text);
    for (std::size_t i = 0; i < spec_.name_count; ++i) {
      if (spec_.names[i] == name) return spec_.min + static_cast<int>(i);
    }
    return error(notNumberText(text));
  }

  std::string notNumberText(std::string_view text) const {
    std::string what = "value \"" + std::string(text) + "\" is not a number";
    if (!spec_.name_hint.empty()) what += " or " + std::string(spec_.name_hint);
    if (text.find_first_of("LW#?") != std::string_view::npos) {
      what += " (L, W, # and ? are not supported)";
    }
    return what;
  }

  const FieldSpec& spec_;
  std::string_view schedule_;
};

int maxDaysInMonth(int month) {
  static constexpr std::array<int, 13> kDays = {0, 31, 29, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31};
  return kDays[month];
}

// With the day-of-week field unrestricted, a day-of-month that no selected month has (such as
// "30 2") would never run; say so instead of accepting a job that never fires.
Status checkReachable(const CronFields& f, std::string_view schedule) {
  if (f.dom_star || !f.dow_star) return Status::ok();
  for (int month = 1; month <= 12; ++month) {
    if (!f.months[month]) continue;
    for (int day = 1; day <= maxDaysInMonth(month); ++day) {
      if (f.days_of_month[day]) return Status::ok();
    }
  }
  return Status::error("cron: \"" + std::string(schedule) +
                       "\" never runs: no selected month has the selected day-of-month");
}

template <std::size_t N>
std::bitset<N> toBits(uint64_t mask) {
  return std::bitset<N>(mask & ((N >= 64) ? ~uint64_t{0} : ((uint64_t{1} << N) - 1)));
}

Result<CronFields> parseFields(const std::vector<std::string>& words, std::string_view quoted) {
  std::array<uint64_t, 5> masks{};
  for (std::size_t i = 0; i < 5; ++i) {
    Result<uint64_t> mask = FieldParser(kFields[i], quoted).parse(words[i]);
    if (!mask.isOk()) return mask.status();
    masks[i] = mask.value();
  }
  CronFields f;
  f.minutes = toBits<60>(masks[0]);
  f.hours = toBits<24>(masks[1]);
  f.days_of_month = toBits<32>(masks[2]);
  f.months = toBits<13>(masks[3]);
  f.days_of_week = toBits<7>(masks[4] | ((masks[4] >> 7) & 1));  // 7 is Sunday
  f.hour_star = words[1].front() == '*';
  f.dom_star = words[2].front() == '*';
  f.dow_star = words[4].front() == '*';
  if (Status s = checkReachable(f, quoted); !s.isOk()) return s;
  return f;
}

Result<Schedule> parseCron(const std::string& text, std::string_view expansion) {
  std::vector<std::string> words = splitWhitespace(expansion);
  if (words.size() != 5) {
    return Status::error(
        "cron: expected 5 fields (minute hour day-of-month month day-of-week), got " +
        std::to_string(words.size()) + " in \"" + text + "\"");
  }
  Result<CronFields> fields = parseFields(words, text);
  if (!fields.isOk()) return fields.status();
  Schedule s;
  s.kind = ScheduleKind::kCron;
  s.text = text;
  s.fields = fields.value();
  return s;
}

Status everyError(const std::string& text, const std::string& what) {
  return Status::error("cron: " + what + " in \"" + text +
                       "\" (use a duration such as 15m, 2h, 1h30m or 1d; minimum 1m)");
}

Result<int64_t> parseDuration(const std::string& text, std::string_view spec) {
  if (spec.empty()) return everyError(text, "@every needs a duration");
  Result<int64_t> total = parseDurationMs(spec);
  if (!total.isOk()) {
    return everyError(text, "duration \"" + std::string(spec) + "\" " + total.status().message());
  }
  if (total.value() < kMinuteMs) {
    return everyError(text, "duration \"" + std::string(spec) + "\" is shorter than 1 minute");
  }
  if (total.value() > kMaxPeriodMs) {
    return everyError(text, "duration \"" + std::string(spec) + "\" is longer than 366 days");
  }
  return total;
}

Result<Schedule> parseEvery(const std::string& text, std::string_view spec) {
  std::string compact;
  for (char c : spec) {
    if (!std::isspace(static_cast<unsigned char>(c))) compact += c;
  }
  Result<int64_t> ms = parseDuration(text, compact);
  if (!ms.isOk()) return ms.status();
  Schedule s;
  s.kind = ScheduleKind::kEvery;
  s.text = text;
  s.every_ms = ms.value();
  return s;
}

Result<Schedule> parseMacro(const std::string& text) {
  static constexpr std::array<std::pair<std::string_view, std::string_view>, 7> kMacros = {{
      {"@hourly", "0 * * * *"},
      {"@daily", "0 0 * * *"},
      {"@midnight", "0 0 * * *"},
      {"@weekly", "0 0 * * 0"},
      {"@monthly", "0 0 1 * *"},
      {"@yearly", "0 0 1 1 *"},
      {"@annually", "0 0 1 1 *"},
  }};
  std::string word = lower(splitWhitespace(text).front());
  if (word == "@every") return parseEvery(text, std::string_view(text).substr(6));
  for (const auto& [name, expansion] : kMacros) {
    if (word == name && splitWhitespace(text).size() == 1) return parseCron(text, expansion);
  }
  return Status::error("cron: unknown schedule \"" + text +
                       "\"; use @hourly, @daily, @midnight, @weekly, @monthly, @yearly, "
                       "@annually or @every <duration>");
}

bool isOneShot(std::string_view text) {
  return text.size() >= 5 && text[4] == '-' &&
         std::all_of(text.begin(), text.begin() + 4,
                     [](unsigned char c) { return std::isdigit(c); });
}

std::optional<cctz::civil_minute> parseLocalMinute(std::string_view t) {
  if (t.size() != 16 || t[4] != '-' || t[7] != '-' || (t[10] != 'T' && t[10] != ' ') ||
      t[13] != ':') {
    return std::nullopt;
  }
  std::array<std::optional<int64_t>, 5> n = {
      parseNumber(t.substr(0, 4)), parseNumber(t.substr(5, 2)), parseNumber(t.substr(8, 2)),
      parseNumber(t.substr(11, 2)), parseNumber(t.substr(14, 2))};
  if (!std::all_of(n.begin(), n.end(), [](const auto& v) { return v.has_value(); })) {
    return std::nullopt;
  }
  cctz::civil_minute m(*n[0], static_cast<int>(*n[1]), static_cast<int>(*n[2]),
                       static_cast<int>(*n[3]), static_cast<int>(*n[4]));
  // civil_minute normalizes (Feb 30 -> Mar 2); a changed field means the input was invalid.
  if (m.year() != *n[0] || m.month() != *n[1] || m.day() != *n[2] || m.hour() != *n[3] ||
      m.minute() != *n[4]) {
    return std::nullopt;
  }
  return m;
}

Result<Schedule> parseOneShot(const std::string& text) {
  std::optional<cctz::civil_minute> local = parseLocalMinute(text);
  if (!local) {
    return Status::error("cron: one-shot time \"" + text +
                         "\" is not a valid local date and time (expected YYYY-MM-DDTHH:MM, "
                         "e.g. 2026-12-01T09:00)");
  }
  Schedule s;
  s.kind = ScheduleKind::kOnce;
  s.text = text;
  s.once = *local;
  return s;
}

}  // namespace

Result<int64_t> parseDurationMs(std::string_view spec) {
  if (spec.empty()) return Status::error("is empty");
  int64_t total = 0;
  std::size_t i = 0;
  while (i < spec.size()) {
    std::size_t digits = i;
    while (digits < spec.size() && std::isdigit(static_cast<unsigned char>(spec[digits]))) ++digits;
    if (digits == i) return Status::error("is malformed");
    if (digits == spec.size()) return Status::error("lacks a unit (d, h, m or s)");
    int64_t amount = std::min<int64_t>(*parseNumber(spec.substr(i, digits - i)), kMaxPeriodMs);
    int64_t unit_ms = 0;
    switch (std::tolower(static_cast<unsigned char>(spec[digits]))) {
      case 'd': unit_ms = kDayMs; break;
      case 'h': unit_ms = kHourMs; break;
      case 'm': unit_ms = kMinuteMs; break;
      case 's': unit_ms = 1000; break;
      default: return Status::error("has unknown unit '" + std::string(1, spec[digits]) + "'");
    }
    total = std::min(total + amount * unit_ms, kMaxPeriodMs + 1);
    i = digits + 1;
  }
  return total;
}

Result<Schedule> parseSchedule(std::string_view raw) {
  std::string text(text::trim(raw));
  if (text.empty()) {
    return Status::error(
        "cron: empty schedule; use 5 fields (minute hour day-of-month month day-of-week) such "
        "as \"30 7 * * 1-5\", a macro such as @daily, @every 15m, or a local time such as "
        "2026-12-01T09:00");
  }
  if (text.front() == '@') return parseMacro(text);
  if (isOneShot(text)) return parseOneShot(text);
  return parseCron(text, text);
}

}  // namespace gantry::cron
