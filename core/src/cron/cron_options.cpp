#include "cron/cron_options.h"

#include "cron/schedule.h"

namespace gantry::cron {

Result<Zone> loadCronZone(const std::string& name) {
  Result<cctz::time_zone> tz = loadZone(name);
  if (!tz.isOk()) return tz.status();
  return Zone{name, tz.value()};
}

}  // namespace gantry::cron
