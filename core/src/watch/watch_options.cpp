#include "watch/watch_options.h"

#include <cctype>

namespace gantry::watch {
namespace {

constexpr int64_t kMaxSeconds = 366LL * 86400;

int64_t unitSeconds(char unit) {
  switch (unit) {
    case 's': return 1;
    case 'm': return 60;
    case 'h': return 3600;
    case 'd': return 86400;
    default: return 0;
  }
}

Status badEvery(const std::string& text) {
  return Status::error("watch_add: \"every\" \"" + text +
                       "\" is not a duration; give one such as \"90s\", \"15m\", \"2h\", "
                       "\"1h30m\" or a number of seconds");
}

}  // namespace

Result<int64_t> parseEverySeconds(const std::string& text) {
  int64_t total = 0;
  std::size_t i = 0;
  bool any = false;
  while (i < text.size()) {
    int64_t number = 0;
    std::size_t start = i;
    while (i < text.size() && std::isdigit(static_cast<unsigned char>(text[i])) != 0) {
      if (i - start >= 9) return badEvery(text);
      number = number * 10 + (text[i++] - '0');
    }
    if (i == start) return badEvery(text);
    const bool bare = i == text.size() && start == 0;
    const int64_t unit = bare ? 1 : (i < text.size() ? unitSeconds(text[i++]) : 0);
    if (unit == 0) return badEvery(text);
    total += number * unit;
    any = true;
    if (total > kMaxSeconds) {
      return Status::error("watch_add: \"every\" \"" + text + "\" is longer than a year");
    }
  }
  if (!any || total <= 0) return badEvery(text);
  return total;
}

std::string formatSeconds(int64_t seconds) {
  if (seconds < 60 || seconds % 60 != 0) return std::to_string(seconds) + "s";
  const int64_t minutes = seconds / 60;
  if (minutes < 60) return std::to_string(minutes) + "m";
  const int64_t hours = minutes / 60, rest = minutes % 60;
  return std::to_string(hours) + "h" + (rest != 0 ? std::to_string(rest) + "m" : "");
}

}  // namespace gantry::watch
