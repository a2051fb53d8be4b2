#include "app/repeat_filter.h"

#include <catch2/catch.hpp>

using gantry::app::RepeatFilter;
using gantry::app::repeatKey;
using std::chrono::minutes;

namespace {

const RepeatFilter::Clock::time_point kStart{};

}  // namespace

TEST_CASE("a repeat key ignores the details that change between repeats", "[app]") {
  std::string first = repeatKey(
      R"({"ts":"1","level":"error","msg":"mcp_server_failed","server":"a","error":"x 1"})");
  std::string again = repeatKey(
      R"({"ts":"2","level":"error","msg":"mcp_server_failed","server":"a","error":"x 2"})");
  std::string other =
      repeatKey(R"({"ts":"3","level":"error","msg":"mcp_server_failed","server":"b","error":"x"})");
  CHECK(first == again);
  CHECK(first != other);
}

TEST_CASE("a repeated record is reported once per window, then with its count", "[app]") {
  RepeatFilter filter(minutes(30));
  std::size_t before = 99;
  CHECK(filter.admit("k", "line 0", kStart, &before));
  CHECK(before == 0);
  for (int i = 1; i <= 7; ++i) CHECK_FALSE(filter.admit("k", "line", kStart + minutes(i), &before));
  CHECK(filter.admit("k", "line 8", kStart + minutes(31), &before));
  CHECK(before == 7);
}

TEST_CASE("repeats that stop are summarised once the window has passed", "[app]") {
  RepeatFilter filter(minutes(30));
  std::size_t before = 0;
  filter.admit("k", "first", kStart, &before);
  filter.admit("k", "second", kStart + minutes(1), &before);
  filter.admit("k", "third", kStart + minutes(2), &before);
  CHECK(filter.due(kStart + minutes(29)).empty());
  auto summaries = filter.due(kStart + minutes(30));
  REQUIRE(summaries.size() == 1);
  CHECK(summaries[0].repeats == 2);
  CHECK(summaries[0].last_line == "third");
  CHECK(filter.due(kStart + minutes(90)).empty());
}

TEST_CASE("different keys are reported independently", "[app]") {
  RepeatFilter filter(minutes(30));
  std::size_t before = 0;
  CHECK(filter.admit("a", "a", kStart, &before));
  CHECK(filter.admit("b", "b", kStart, &before));
  CHECK_FALSE(filter.admit("a", "a", kStart, &before));
}
