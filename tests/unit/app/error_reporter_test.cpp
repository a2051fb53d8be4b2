#include "app/error_reporter.h"

#include <catch2/catch.hpp>

TEST_CASE("a log record renders as a headline and an expandable quote of its fields", "[app]") {
  auto text = gantry::app::renderReport(
      R"({"ts":"2026-11-30T23:00:00.000Z","level":"error","msg":"turn_failed","error":"model: HTTP 500"})");
  CHECK(text ==
        "⚠️ error: turn_failed\n**>ts: 2026-11-30T23:00:00.000Z\n>error: model: HTTP 500||");
}

TEST_CASE("a line that is not JSON is reported as it is", "[app]") {
  CHECK(gantry::app::renderReport("plain") == "⚠️ plain");
}
