#include "tools/arguments.h"

#include <catch2/catch.hpp>

using namespace gantry::tools;

TEST_CASE("blank arguments are an empty object", "[tools]") {
  for (const char* blank : {"", "  ", "\n\t"}) {
    auto args = parseArguments(blank);
    REQUIRE(args.isOk());
    CHECK(args.value()->size() == 0);
  }
}

TEST_CASE("arguments that are not a JSON object are an error the model can act on", "[tools]") {
  auto broken = parseArguments(R"({"a":)");
  REQUIRE_FALSE(broken.isOk());
  CHECK_THAT(broken.status().message(), Catch::StartsWith("the arguments are not valid JSON ("));
  CHECK_THAT(broken.status().message(), Catch::EndsWith("matching the tool's parameters"));
  for (const char* other : {"[1,2]", "\"text\"", "42"}) {
    auto parsed = parseArguments(other);
    REQUIRE_FALSE(parsed.isOk());
    CHECK(parsed.status().message() ==
          "the arguments must be a JSON object matching the tool's parameters");
  }
}

TEST_CASE("typed readers accept what models commonly send", "[tools]") {
  auto args = parseArguments(
      R"({"s":"text","n":7,"q":"12","bad":"12x","f":1.5,"huge":"99999999999999999999"})");
  REQUIRE(args.isOk());
  const auto& object = *args.value();
  CHECK(stringArgument(object, "s") == "text");
  CHECK_FALSE(stringArgument(object, "n").has_value());
  CHECK_FALSE(stringArgument(object, "missing").has_value());
  CHECK(integerArgument(object, "n") == 7);
  CHECK(integerArgument(object, "q") == 12);
  CHECK_FALSE(integerArgument(object, "bad").has_value());
  CHECK_FALSE(integerArgument(object, "f").has_value());
  CHECK_FALSE(integerArgument(object, "huge").has_value());
  CHECK_FALSE(integerArgument(object, "s").has_value());
}
