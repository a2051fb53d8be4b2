#include "gantry/text/shown_rows.h"

#include <catch2/catch.hpp>

using gantry::text::forEachMemoryRow;
using gantry::text::ShownRows;

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

TEST_CASE("shown rows hold every row of the messages added, whole lines only", "[text]") {
  ShownRows shown;
  CHECK_FALSE(shown.contains("- (fact) a: b"));
  shown.add("[memory]\n- (fact) a: b\n- (fact) c: d\n\nhi");
  shown.add("plain words");
  auto check = [&](const char* when) {
    INFO(when);
    for (const char* row : {"- (fact) a: b", "- (fact) c: d", "- (person) mom: calls"}) {
      INFO(row);
      CHECK(shown.contains(row));
    }
    CHECK_FALSE(shown.contains("- (fact) typed: by the user"));
    CHECK_FALSE(shown.contains("- (fact) a: bc"));
    CHECK_FALSE(shown.contains("- (fact) a:"));
    CHECK_FALSE(shown.contains("plain words"));
  };
  shown.settle();
  shown.add("[memory]\n- (person) mom: calls\n\n- (fact) typed: by the user\n");
  shown.add("[memory]\n- (fact) a: b\n\nagain");
  check("added since the last settle()");  // searched and scanned
  shown.settle();
  check("all settled");
  shown.settle();
  check("settled twice");
}
