#include "watch/watch_options.h"

#include <algorithm>
#include <cctype>

#include "cron/schedule.h"

namespace gantry::watch {
namespace {

constexpr int64_t kMaxSeconds = cron::kMaxPeriodMs / 1000;

Status badEvery(const std::string& text) {
  return Status::error("watch_add: \"every\" \"" + text +
                       "\" is not a duration; give one such as \"90s\", \"15m\", \"2h\", "
                       "\"1h30m\" or a number of seconds");
}

}  // namespace

Result<int64_t> parseEverySeconds(const std::string& text) {
  const bool bare =
      !text.empty() && text.size() <= 9 &&
      std::all_of(text.begin(), text.end(), [](unsigned char c) { return std::isdigit(c) != 0; });
  int64_t seconds = 0;
  if (bare) {
    seconds = std::stoll(text);
  } else {
    Result<int64_t> ms = cron::parseDurationMs(text);
    if (!ms.isOk()) return badEvery(text);
    seconds = ms.value() > cron::kMaxPeriodMs ? kMaxSeconds + 1 : ms.value() / 1000;
  }
  if (seconds <= 0) return badEvery(text);
  if (seconds > kMaxSeconds) {
    return Status::error("watch_add: \"every\" \"" + text + "\" is longer than a year");
  }
  return seconds;
}

std::string formatSeconds(int64_t seconds) {
  if (seconds < 60 || seconds % 60 != 0) return std::to_string(seconds) + "s";
  const int64_t minutes = seconds / 60;
  if (minutes < 60) return std::to_string(minutes) + "m";
  const int64_t hours = minutes / 60, rest = minutes % 60;
  return std::to_string(hours) + "h" + (rest != 0 ? std::to_string(rest) + "m" : "");
}

}  // namespace gantry::watch
