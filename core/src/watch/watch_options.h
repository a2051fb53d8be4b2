#pragma once
/// Watch configuration (WATCH_ENABLED, WATCH_MAX, WATCH_MIN_SECONDS) and the `every`
/// durations watch_add accepts. Pure.

#include <cstdint>
#include <string>

#include "gantry/status.h"

namespace gantry::watch {

/// Values as parsed from the environment by the core's config.
struct WatchOptions {
  bool enabled = true;
  int max_watches = 50;
  int min_seconds = 60;  ///< a shorter interval is raised to this
};

/// A duration as watch_add's `every` takes it: "90s", "15m", "2h", "1d", "1h30m", or a
/// number of seconds ("300"). The error quotes the text and says what is accepted.
Result<int64_t> parseEverySeconds(const std::string& text);

/// seconds for people: "90s", "15m", "2h", "1h30m".
std::string formatSeconds(int64_t seconds);

}  // namespace gantry::watch
