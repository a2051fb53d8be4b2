#include "tools/naming.h"

#include <catch2/catch.hpp>

using namespace gantry::tools;

TEST_CASE("published names join prefix and tool with a double underscore", "[tools]") {
  CHECK(publishedName("garmin", "get_hrv") == "garmin__get_hrv");
  CHECK(publishedName("everything", "get-sum") == "everything__get-sum");
}

TEST_CASE("characters outside the OpenAI-safe set become underscores", "[tools]") {
  CHECK(publishedName("fs", "read.file/v2") == "fs__read_file_v2");
  CHECK(safeToolName(publishedName("fs", "read file: now")));
}

TEST_CASE("names longer than 64 characters are shortened with a stable hash", "[tools]") {
  const std::string tool(80, 'a');
  const auto name = publishedName("server", tool);
  CHECK(name.size() == 64);
  CHECK(safeToolName(name));
  CHECK(name == publishedName("server", tool));
  CHECK(name.substr(55) == "_" + stableHash("server__" + tool));
  CHECK(name != publishedName("server", tool + "b"));
}

TEST_CASE("the stable hash is FNV-1a and does not change between runs", "[tools]") {
  CHECK(stableHash("") == "811c9dc5");
  CHECK(stableHash("a") == "e40c292c");
}

TEST_CASE("safe tool names are 1 to 64 characters of letters, digits, _ and -", "[tools]") {
  CHECK(safeToolName("a"));
  CHECK_FALSE(safeToolName(""));
  CHECK_FALSE(safeToolName(std::string(65, 'a')));
  CHECK_FALSE(safeToolName("functions.get"));
}

TEST_CASE("schema token estimates are chars divided by four, rounded up", "[tools]") {
  CHECK(estimateTokens("abcd", "", "") == 1);
  CHECK(estimateTokens("abcd", "e", "") == 2);
  CHECK(estimateTokens("", "", "") == 0);
}
