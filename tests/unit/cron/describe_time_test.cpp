#include <catch2/catch.hpp>

#include "cron/cron_options.h"

TEST_CASE("the prompt's time is told in CRON_TZ with the weekday and the zone", "[cron]") {
  auto tokyo = gantry::cron::loadCronZone("Asia/Tokyo");
  REQUIRE(tokyo.isOk());
  CHECK(gantry::cron::describeTime(0, tokyo.value()) == "1970-01-01 09:00 (Thursday), Asia/Tokyo");
  auto utc = gantry::cron::loadCronZone("UTC");
  REQUIRE(utc.isOk());
  // 2026-11-30 22:40:59 UTC, a Monday.
  CHECK(gantry::cron::describeTime(1796078459000, utc.value()) == "2026-11-30 22:40 (Monday), UTC");
}
