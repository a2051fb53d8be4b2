// The cron schedule parser (cron/schedule.h): any text parses or fails with a message; a
// schedule that parses gives next runs strictly after the given instant, in UTC and in a zone
// with daylight saving time.

#include <cstdint>
#include <string>

#include "cron/schedule.h"
#include "fuzz_support.h"

namespace {

constexpr std::int64_t kStartMs = 1'774'000'000'000;  // March 2026, near a DST change

void walk(const gantry::cron::Schedule& schedule, const cctz::time_zone& tz) {
  std::int64_t after = kStartMs;
  for (int run = 0; run < 3; ++run) {
    const auto next = gantry::cron::nextRunMs(schedule, after, tz, kStartMs);
    if (!next) return;
    gantry::fuzz::require(*next > after, "the next run is strictly after the given instant");
    (void)gantry::cron::formatLocal(*next, tz);
    after = *next;
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const auto parsed = gantry::cron::parseSchedule(gantry::fuzz::asText(data, size));
  if (!parsed.isOk()) {
    gantry::fuzz::require(!parsed.status().message().empty(), "a refused schedule says why");
    return 0;
  }
  static const cctz::time_zone kUtc = cctz::utc_time_zone();
  static const cctz::time_zone kBerlin = [] {
    auto zone = gantry::cron::loadZone("Europe/Berlin");
    return zone.isOk() ? zone.value() : cctz::utc_time_zone();
  }();
  walk(parsed.value(), kUtc);
  walk(parsed.value(), kBerlin);
  return 0;
}
