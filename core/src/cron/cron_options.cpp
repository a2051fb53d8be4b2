#include "cron/cron_options.h"

#include <chrono>

#include "cron/schedule.h"

namespace gantry::cron {

Result<Zone> loadCronZone(const std::string& name) {
  Result<cctz::time_zone> tz = loadZone(name);
  if (!tz.isOk()) return tz.status();
  return Zone{name, tz.value()};
}

std::string describeTime(int64_t ms, const Zone& zone) {
  auto at = std::chrono::system_clock::time_point(std::chrono::milliseconds(ms));
  return cctz::format("%Y-%m-%d %H:%M (%A), ", at, zone.tz) + zone.name;
}

}  // namespace gantry::cron
