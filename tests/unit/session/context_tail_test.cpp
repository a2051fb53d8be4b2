#include "session/context_tail.h"

#include <catch2/catch.hpp>
#include <string>
#include <vector>

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

TEST_CASE("a memory block keeps only the rows no earlier message showed", "[session]") {
  const std::string block = "[memory]\n- (fact) sky: blue\n- (person) mom: calls\n- (fact) a: b\n";
  std::vector<gantry::ChatMessage> history;
  CHECK(withoutShownRows(block, history) == block);
  auto add = [&](gantry::Role role, std::string sent) {
    history.push_back({role, std::move(sent), {}, {}, {}, {}, {}});
  };
  add(gantry::Role::kUser, withContext("[memory]\n- (person) mom: calls\n", "t", "hi"));
  add(gantry::Role::kUser, withContext("", "t", "- (fact) sky: blue"));
  add(gantry::Role::kAssistant, "[memory]\n- (fact) sky: blue\n\nechoed by the model");
  add(gantry::Role::kUser, withContext("[memory]\n- (fact) a: b\n- (fact) c: d\n", "", "x"));
  CHECK(withoutShownRows(block, history) == "[memory]\n- (fact) sky: blue\n");
  CHECK(withoutShownRows("[memory]\n- (fact) a: b\n", history).empty());
  // A row is a whole line: one that only starts like a shown row is new.
  CHECK(withoutShownRows("[memory]\n- (fact) a: bc\n", history) == "[memory]\n- (fact) a: bc\n");
}
