#include "gantry/text/context_blocks.h"

#include <catch2/catch.hpp>
#include <string>
#include <vector>

using gantry::text::forEachMemoryRow;

namespace {

std::vector<std::string> rowsOf(std::string_view sent) {
  std::vector<std::string> rows;
  forEachMemoryRow(sent, [&](std::string_view row) { rows.emplace_back(row); });
  return rows;
}

}  // namespace

TEST_CASE("a message's memory rows are the lines between its block's head and blank line",
          "[text]") {
  using Rows = std::vector<std::string>;
  CHECK(rowsOf("[memory]\n- (fact) a: b\n- (fact) c: d\n\n[now] t\n\nhi") ==
        Rows{"- (fact) a: b", "- (fact) c: d"});
  CHECK(rowsOf("[memory]\n- (fact) a: b\n\n- (fact) c: d\n") == Rows{"- (fact) a: b"});
  CHECK(rowsOf("[memory]\n\nhi").empty());
  // Words that only look like a block: no blank line ends them, or they do not start the text.
  CHECK(rowsOf("[memory]\n- (fact) a: b\nmore words").empty());
  CHECK(rowsOf("hi\n[memory]\n- (fact) a: b\n\n").empty());
  CHECK(rowsOf("").empty());
}
