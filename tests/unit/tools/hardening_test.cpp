#include "tools/hardening.h"

#include <catch2/catch.hpp>

using namespace gantry::tools;

TEST_CASE("printed tool calls are recognised in every written form", "[tools]") {
  const char* table[] = {
      R"({"name":"get_hrv","arguments":{"day":"today"}})",
      "  {\"name\": \"get_hrv\", \"arguments\": {\"day\": \"today\"}}\n",
      R"({"name":"get_hrv","parameters":{"day":"today"}})",
      R"({"name":"get_hrv","arguments":"{\"day\":\"today\"}"})",
      "```json\n{\"name\":\"get_hrv\",\"arguments\":{\"day\":\"today\"}}\n```",
      "```\n{\"name\":\"get_hrv\",\"arguments\":{\"day\":\"today\"}}\n```",
      "<tool_call>{\"name\":\"get_hrv\",\"arguments\":{\"day\":\"today\"}}</tool_call>",
      "<tool_call>\n{\"name\":\"get_hrv\",\"arguments\":{\"day\":\"today\"}}\n</tool_call>",
      R"({"type":"function","function":{"name":"get_hrv","arguments":{"day":"today"}}})",
  };
  for (const char* text : table) {
    INFO(text);
    auto call = parsePrintedCall(text);
    REQUIRE(call.has_value());
    CHECK(call->name == "get_hrv");
    CHECK(call->arguments == R"({"day":"today"})");
    CHECK(call->id.empty());
  }
}

TEST_CASE("ordinary text is not taken for a printed call", "[tools]") {
  const char* table[] = {
      "Your HRV is 42 today.",
      "",
      R"({"name":"Bob"})",
      R"(Here you go: {"name":"get_hrv","arguments":{}})",
      R"({"name":"get_hrv","arguments":{}} and then some)",
      "```python\nprint(1)\n```",
      R"({"name":"get_hrv","arguments":[1,2]})",
      R"({"name":42,"arguments":{}})",
      "{not json}",
  };
  for (const char* text : table) {
    INFO(text);
    CHECK_FALSE(parsePrintedCall(text).has_value());
  }
}

TEST_CASE("argument validation accepts only JSON objects", "[tools]") {
  CHECK(validJsonObject(R"({"a":1})"));
  CHECK(validJsonObject("{}"));
  CHECK_FALSE(validJsonObject("[1]"));
  CHECK_FALSE(validJsonObject("{\"a\":"));
  CHECK_FALSE(validJsonObject(""));
}
