#include "session/history_bounds.h"

#include <catch2/catch.hpp>

#include "unit/support/chat_message.h"

using gantry::ChatMessage;
using gantry::Role;
using gantry::ToolCall;
using namespace gantry::session;

using gantry::testing::message;

namespace {

ChatMessage user(std::string text) { return message(Role::kUser, std::move(text)); }
ChatMessage assistant(std::string text) { return message(Role::kAssistant, std::move(text)); }
ChatMessage calls(const std::vector<std::string>& ids) {
  ChatMessage m = message(Role::kAssistant, "");
  for (const auto& id : ids) m.tool_calls.push_back(ToolCall{id, "lookup", "{}", ""});
  return m;
}
ChatMessage result(std::string id, std::string text = "result") {
  ChatMessage m = message(Role::kTool, std::move(text));
  m.tool_call_id = std::move(id);
  m.name = "lookup";
  return m;
}

// A conversation of n turns: user, assistant tool call, tool result, assistant text.
std::vector<ChatMessage> turns(int n) {
  std::vector<ChatMessage> history;
  for (int i = 0; i < n; ++i) {
    std::string id = "c" + std::to_string(i);
    history.push_back(user("question " + std::to_string(i)));
    history.push_back(calls({id}));
    history.push_back(result(id));
    history.push_back(assistant("answer " + std::to_string(i)));
  }
  return history;
}

// Every tool message directly follows its assistant call message (or another result of it).
bool pairsIntact(const std::vector<ChatMessage>& kept) {
  for (std::size_t i = 0; i < kept.size(); ++i) {
    if (kept[i].role != Role::kTool) continue;
    std::size_t j = i;
    while (j > 0 && kept[j - 1].role == Role::kTool) --j;
    if (j == 0 || kept[j - 1].tool_calls.empty()) return false;
  }
  return true;
}

}  // namespace

TEST_CASE("tokens are estimated as chars over four, images at a fixed estimate", "[session]") {
  CHECK(estimateTokens(user("")) == 0);
  CHECK(estimateTokens(user("abcd")) == 1);
  CHECK(estimateTokens(user("abcde")) == 2);
  ChatMessage photo = user("abcd");
  photo.images.push_back({"image/png", "AAAA", ""});
  CHECK(estimateTokens(photo) == 1 + kImageTokenEstimate);
  CHECK(estimateTokens(calls({"id"})) == 2);  // "lookup" + "{}" = 8 chars
  CHECK(estimateTokens(std::vector<ChatMessage>{user("abcd"), user("abcd")}) == 2);
}

TEST_CASE("a history within bounds is kept whole", "[session]") {
  auto history = turns(3);
  auto bound = boundHistory(history, {100, 100000, 2});
  CHECK(bound.kept.size() == history.size());
  CHECK(bound.dropped.empty());
  CHECK(bound.kept_tokens == estimateTokens(history));
}

TEST_CASE("the message cap drops the oldest whole turns first", "[session]") {
  auto history = turns(10);  // 40 messages
  auto bound = boundHistory(history, {10, 100000, 2, 100});
  REQUIRE(bound.kept.size() == 8);  // two whole turns fit in ten messages
  CHECK(bound.kept.front().content == "question 8");
  CHECK(bound.dropped.size() == 32);
  CHECK(bound.dropped.front().content == "question 0");
  CHECK(pairsIntact(bound.kept));
}

TEST_CASE("the token cap drops old turns but keeps the protected ones", "[session]") {
  std::vector<ChatMessage> history;
  for (int i = 0; i < 6; ++i) {
    history.push_back(user(std::string(400, 'u')));       // 100 tokens
    history.push_back(assistant(std::string(400, 'a')));  // 100 tokens
  }
  auto bound = boundHistory(history, {200, 450, 2, 100});
  CHECK(bound.kept.size() == 4);
  CHECK(bound.kept_tokens == 400);
  auto tight = boundHistory(history, {200, 10, 2});
  CHECK(tight.kept.size() == 4);  // protected turns outrank the token estimate
  CHECK(tight.kept.front().role == Role::kUser);
}

TEST_CASE("the message cap is hard even inside protected turns, keeping pairs", "[session]") {
  std::vector<ChatMessage> history = {user("go"),       calls({"a", "b"}), result("a"),
                                      result("b"),      calls({"c"}),      result("c"),
                                      assistant("done")};
  auto bound = boundHistory(history, {4, 100000, 2});
  REQUIRE(bound.kept.size() == 3);
  CHECK(bound.kept[0].tool_calls.size() == 1);
  CHECK(bound.kept[1].tool_call_id == "c");
  CHECK(pairsIntact(bound.kept));
  auto two = boundHistory(history, {2, 100000, 2});
  CHECK(two.kept.size() == 1);  // the c pair and "done" would be three
  CHECK(two.kept[0].content == "done");
}

TEST_CASE("an assistant call is never separated from its results", "[session]") {
  auto history = turns(20);
  for (int cap = 1; cap <= 30; ++cap) {
    for (int tokens : {5, 20, 100000}) {
      auto bound = boundHistory(history, {cap, tokens, 1});
      INFO("cap " << cap << " tokens " << tokens);
      CHECK(static_cast<int>(bound.kept.size()) <= cap);
      CHECK(pairsIntact(bound.kept));
      CHECK(bound.kept.size() + bound.dropped.size() == history.size());
    }
  }
}

TEST_CASE("the kept history never starts with a tool message", "[session]") {
  std::vector<ChatMessage> history = {result("orphan"), result("orphan2"), user("hi"),
                                      assistant("hello")};
  auto bound = boundHistory(history, {100, 100000, 2});
  REQUIRE(bound.kept.size() == 2);
  CHECK(bound.kept.front().role == Role::kUser);
  CHECK(bound.dropped.size() == 2);
}

TEST_CASE("a zero message cap keeps nothing", "[session]") {
  auto bound = boundHistory(turns(2), {0, 100000, 2});
  CHECK(bound.kept.empty());
  CHECK(bound.dropped.size() == 8);
}

TEST_CASE("tool results older than the last four collapse to one line", "[session]") {
  std::vector<ChatMessage> prompt;
  std::vector<int64_t> ids;
  for (int i = 0; i < 6; ++i) {
    std::string id = "c" + std::to_string(i);
    prompt.push_back(calls({id}));
    prompt.push_back(result(id, std::string(100 + i, 'x')));
  }
  prompt.push_back(user("né"));
  for (std::size_t i = 0; i < prompt.size(); ++i) ids.push_back(static_cast<int64_t>(i + 1));
  const int64_t mark = collapseMark(prompt, ids);
  CHECK(mark == 4);  // the second result; the last four stay whole
  collapseThrough(prompt, ids, mark);
  CHECK(prompt[1].content == "[tool lookup: 100 chars, collapsed]");
  CHECK(prompt[3].content == "[tool lookup: 101 chars, collapsed]");
  CHECK(prompt[5].content == std::string(102, 'x'));
  CHECK(prompt[11].content == std::string(105, 'x'));
  CHECK(prompt[12].content == "né");
  auto again = prompt;
  collapseThrough(again, ids, mark);
  CHECK(again[1].content == prompt[1].content);
}

TEST_CASE("collapse counts characters and finds the name from the call", "[session]") {
  ChatMessage call = calls({"x"});
  call.tool_calls[0].name = "weather__forecast";
  std::string text;
  for (int i = 0; i < 60; ++i) text += "é";
  ChatMessage res = message(Role::kTool, text);
  res.tool_call_id = "x";
  std::vector<ChatMessage> prompt = {call, res};
  collapseThrough(prompt, {0, 7}, collapseMark(prompt, {0, 7}, 0));
  CHECK(prompt[1].content == "[tool weather__forecast: 60 chars, collapsed]");
}

TEST_CASE("a collapsed result is never longer than the result it replaces", "[session]") {
  std::vector<ChatMessage> prompt = {calls({"a", "b", "c"}), result("a", "sunny, 21 C"),
                                     result("b", std::string(34, 'x')),
                                     result("c", std::string(35, 'x'))};
  collapseThrough(prompt, {1, 2, 3, 4}, 4);
  CHECK(prompt[1].content == "sunny, 21 C");         // its marker would be longer: it stays
  CHECK(prompt[2].content == std::string(34, 'x'));  // the marker's own length: no gain
  CHECK(prompt[3].content == "[tool lookup: 35 chars, collapsed]");
}

TEST_CASE("an old result's images leave the prompt, a recent one's stay", "[session]") {
  std::vector<ChatMessage> prompt = {calls({"a", "b"}), result("a", "[image image/png, 8 bytes]"),
                                     result("b", "[image image/png, 8 bytes]")};
  prompt[1].images = {{"image/png", "iVBORw0KGgo=", {}}};
  prompt[2].images = prompt[1].images;
  collapseThrough(prompt, {1, 2, 3}, collapseMark(prompt, {1, 2, 3}, 1));
  CHECK(prompt[1].images.empty());
  CHECK(prompt[1].content == "[image image/png, 8 bytes]");  // shorter than its marker
  CHECK(prompt[2].images.size() == 1);
}

TEST_CASE("four results or fewer leave nothing to collapse", "[session]") {
  std::vector<ChatMessage> prompt = {calls({"a"}), result("a", "r")};
  CHECK(collapseMark(prompt, {1, 2}) == 0);
}

TEST_CASE("trimming goes down to the low-water mark so the prefix stays put", "[session]") {
  auto history = turns(10);  // 40 messages of 4-message turns
  auto trimmed = boundHistory(history, {20, 100000, 1, 50});
  CHECK(trimmed.kept.size() == 8);  // within 50% of 20
  CHECK(trimmed.kept.front().role == Role::kUser);
  // The next turns grow the kept history again without another trim until the cap.
  std::vector<ChatMessage> grown = trimmed.kept;
  for (int turn = 0; turn < 3; ++turn) {
    auto more = turns(1);
    grown.insert(grown.end(), more.begin(), more.end());
    auto bound = boundHistory(grown, {20, 100000, 1, 50});
    CHECK(bound.dropped.empty());
    CHECK(bound.kept.front().content == trimmed.kept.front().content);
  }
  auto within = boundHistory(turns(5), {20, 100000, 1, 50});
  CHECK(within.dropped.empty());  // at the cap, not over it
}
