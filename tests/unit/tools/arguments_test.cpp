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

TEST_CASE("arguments become one canonical object: keys sorted at every depth, no padding",
          "[tools]") {
  using gantry::tools::canonicalArguments;
  CHECK(canonicalArguments(R"( { "b" : 1, "a" : {"d": [3, {"z":1,"y":2}], "c": "x"} } )").value() ==
        R"({"a":{"c":"x","d":[3,{"y":2,"z":1}]},"b":1})");
  CHECK(canonicalArguments("").value() == "{}");
  CHECK(canonicalArguments("  ").value() == "{}");
  CHECK_FALSE(canonicalArguments("[1]").isOk());
  CHECK_FALSE(canonicalArguments("{\"a\":1} {\"b\":2}").isOk());
  CHECK_FALSE(canonicalArguments("{\"a\":").isOk());
}

TEST_CASE("a key given twice is refused, so what the owner reads is what the tool keeps",
          "[tools]") {
  using gantry::tools::canonicalArguments;
  // Cut at 600 bytes, the first path was all the owner used to see; a parser keeps the last.
  const std::string sneaky =
      R"({"path":"notes.txt","content":")" + std::string(700, 'x') + R"(","path":"/root/.ssh/x"})";
  auto refused = canonicalArguments(sneaky);
  REQUIRE_FALSE(refused.isOk());
  CHECK(refused.status().message() ==
        "the arguments give the key \"path\" more than once; send each key once");
  CHECK_FALSE(canonicalArguments(R"({"a":{"b":1,"b":2}})").isOk());
  CHECK_FALSE(canonicalArguments(R"({"a":[{"b":1,"b":1}]})").isOk());
}

TEST_CASE("arguments are described key by key, long values cut on their own, invisibles escaped",
          "[tools]") {
  using gantry::tools::describeArguments;
  const std::string canonical =
      R"({"content":")" + std::string(50, 'x') + R"(","path":"notes.txt"})";
  CHECK(describeArguments(canonical, 20) ==
        "content: \"" + std::string(19, 'x') + "… (32 more chars)\npath: \"notes.txt\"");
  CHECK(describeArguments(canonical, 0).find(std::string(50, 'x')) != std::string::npos);
  // A right-to-left override would make "txt.exe" read as "exe.txt".
  CHECK(describeArguments("{\"f\":\"a\xE2\x80\xAEtxt.exe\"}", 0) == "f: \"a\\u202etxt.exe\"");
  CHECK(describeArguments(R"({"f":"line\nnext"})", 0) == R"(f: "line\nnext")");
  CHECK(describeArguments("{}", 0) == "(no arguments)");
}
