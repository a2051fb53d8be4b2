#include "gantry/text/split.h"

#include <catch2/catch.hpp>

using gantry::text::splitMessage;

TEST_CASE("a short text is one part", "[text]") {
  auto parts = splitMessage("hello", 100);
  REQUIRE(parts.size() == 1);
  CHECK(parts[0] == "hello");
  CHECK(splitMessage("", 100).empty());
}

TEST_CASE("long text splits on paragraph boundaries within the limit", "[text]") {
  std::string para(60, 'a');
  std::string text = para + "\n\n" + para + "\n\n" + para;
  auto parts = splitMessage(text, 130);
  REQUIRE(parts.size() == 2);
  CHECK(parts[0] == para + "\n\n" + para);
  CHECK(parts[1] == para);
}

TEST_CASE("every part respects the limit and no UTF-8 character is cut", "[text]") {
  std::string text;
  for (int i = 0; i < 500; ++i) text += "é";  // 2 bytes each, no spaces
  auto parts = splitMessage(text, 101);
  std::string joined;
  for (const auto& p : parts) {
    CHECK(p.size() <= 101);
    CHECK((static_cast<unsigned char>(p[0]) & 0xC0) != 0x80);
    joined += p;
  }
  CHECK(joined == text);
}

TEST_CASE("a code fence open at a cut is closed and reopened", "[text]") {
  std::string code = "```\n";
  for (int i = 0; i < 40; ++i) code += "line " + std::to_string(i) + "\n";
  code += "```";
  auto parts = splitMessage(code, 120);
  REQUIRE(parts.size() > 1);
  for (const auto& p : parts) {
    CHECK(p.size() <= 120);
    std::size_t fences = 0;
    for (auto pos = p.find("```"); pos != std::string::npos; pos = p.find("```", pos + 3)) ++fences;
    CHECK(fences % 2 == 0);
  }
}

// Found by the telegram_markdown fuzz target: a run of stray continuation bytes longer than
// the limit made every cut empty, so splitting never ended.
TEST_CASE("text that is not UTF-8 still splits into parts within the limit", "[text]") {
  const std::string text = "It is sunny wit" + std::string(120, '\xb0') + "h no rain.";
  auto parts = splitMessage(text, 64);
  std::string joined;
  for (const auto& p : parts) {
    CHECK(p.size() <= 64);
    joined += p;
  }
  CHECK(joined == text);
  CHECK(gantry::text::utf8Prefix(std::string(40, '\x80'), 16) == 16);
}
