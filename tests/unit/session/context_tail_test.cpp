#include "session/context_tail.h"

#include <catch2/catch.hpp>

using gantry::session::memoryBlockOf;
using gantry::session::userText;
using gantry::session::withContext;
using gantry::session::withoutShownRows;

TEST_CASE("the context tail puts the memory block and the time before the words", "[session]") {
  CHECK(withContext("[memory]\n- (fact) sky: blue\n", "2026-12-01 09:00 (Tuesday), UTC", "hello") ==
        "[memory]\n- (fact) sky: blue\n\n[now] 2026-12-01 09:00 (Tuesday), UTC\n\nhello");
  CHECK(withContext("", "t", "hello") == "[now] t\n\nhello");
  CHECK(withContext("", "", "hello") == "hello");
}

TEST_CASE("the user's words are recovered from a message as it was sent", "[session]") {
  for (const auto& [memory, now] : {std::pair<std::string, std::string>{"", ""},
                                    {"[memory]\n- (fact) a: b\n", ""},
                                    {"", "2026-12-01 09:00 (Tuesday), UTC"},
                                    {"[memory]\n- (fact) a: b\n- (person) c: d\n", "t"}}) {
    INFO(memory << "|" << now);
    CHECK(userText(withContext(memory, now, "line one\n\nline two")) == "line one\n\nline two");
  }
}

TEST_CASE("words that only look like a context block are kept", "[session]") {
  CHECK(userText(withContext("", "t", "[now] x\n\ny")) == "[now] x\n\ny");
  CHECK(userText(withContext("[memory]\n- (fact) a: b\n", "t", "[memory]\n\nz")) ==
        "[memory]\n\nz");
  CHECK(userText("[memory] of mine") == "[memory] of mine");
}

TEST_CASE("the memory block of a sent message is found as it was hydrated", "[session]") {
  std::string block = "[memory]\n- (fact) sky: blue\n";
  CHECK(memoryBlockOf(withContext(block, "t", "hi")) == block);
  CHECK(memoryBlockOf(withContext("", "t", "hi")).empty());
  CHECK(memoryBlockOf("plain words").empty());
}

TEST_CASE("a memory block keeps only the rows no earlier block shows", "[session]") {
  const std::string block = "[memory]\n- (fact) sky: blue\n- (person) mom: calls\n- (fact) a: b\n";
  std::vector<std::string_view> shown{"[memory]\n- (person) mom: calls\n", "",
                                      "[memory]\n- (fact) a: b\n- (fact) c: d\n"};
  CHECK(withoutShownRows(block, shown) == "[memory]\n- (fact) sky: blue\n");
  CHECK(withoutShownRows(block, {}) == block);
  CHECK(withoutShownRows("[memory]\n- (fact) a: b\n", shown).empty());
  // A row is a whole line: one that only starts like a shown row is new.
  CHECK(withoutShownRows("[memory]\n- (fact) a: bc\n", shown) == "[memory]\n- (fact) a: bc\n");
}
