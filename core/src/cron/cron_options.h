#pragma once
/// Cron configuration (CRON_ENABLED, CRON_TZ, CRON_MAX_JOBS, CRON_TICK_SECONDS) and the zone it
/// names, loaded once.

#include <cctz/time_zone.h>

#include <cstdint>
#include <string>

#include "gantry/status.h"

namespace gantry::cron {

/// Values as parsed from the environment by the core's config.
struct CronOptions {
  bool enabled = true;
  std::string tz = "UTC";  ///< IANA name
  int max_jobs = 50;
  int tick_seconds = 15;
};

/// A loaded CRON_TZ: the zone and the name it was loaded from.
struct Zone {
  std::string name;
  cctz::time_zone tz;
};

/// Loads options.tz from the system tz database; the error names CRON_TZ.
Result<Zone> loadCronZone(const std::string& name);

/// The prompt's `[now]` text for a Unix time in ms: local date, time and weekday in the
/// zone, then its name, e.g. "2026-11-30 22:40 (Monday), Europe/Berlin".
std::string describeTime(int64_t ms, const Zone& zone);

}  // namespace gantry::cron
