#include "gantry/text/trim.h"

#include <catch2/catch.hpp>

TEST_CASE("trim drops ASCII whitespace at both ends and keeps the inside", "[text]") {
  using gantry::text::trim;
  CHECK(trim("  a b \t\r\n") == "a b");
  CHECK(trim("\v\fx\f") == "x");
  CHECK(trim(" \t\n").empty());
  CHECK(trim("").empty());
}
