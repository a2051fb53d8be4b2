#include <catch2/catch.hpp>
#include <random>

#include "fake_telegram.h"
#include "telegram_api.h"

using gantry::telegram::renderHtml;
using gantry::telegram::renderParts;

namespace {

// What Telegram would show for html; fails the test when Telegram would reject it.
std::string shown(const std::string& html) {
  std::string visible;
  std::string error;
  INFO(html);
  REQUIRE(gantry::fakes::parseTelegramHtml(html, &visible, &error));
  return visible;
}

}  // namespace

TEST_CASE("markdown renders to Telegram HTML", "[telegram][render]") {
  struct Row {
    const char* markdown;
    const char* html;
  };
  const Row rows[] = {
      {"**bold** and __bold__", "<b>bold</b> and <b>bold</b>"},
      {"*italic* and _italic_", "<i>italic</i> and <i>italic</i>"},
      {"***both***", "<b><i>both</i></b>"},
      {"~~gone~~", "<s>gone</s>"},
      {"snake_case_name stays", "snake_case_name stays"},
      {"2 * 3 * 4", "2 * 3 * 4"},
      {"**unclosed bold", "**unclosed bold"},
      {"a < b & c > d", "a &lt; b &amp; c &gt; d"},
      {"`x<y && z`", "<code>x&lt;y &amp;&amp; z</code>"},
      {"**bold `code`**", "<b>bold <code>code</code></b>"},
      {"\\*not italic\\*", "*not italic*"},
      {"[site](https://e.com/?a=1&b=2)", "<a href=\"https://e.com/?a=1&amp;b=2\">site</a>"},
      {"[**bold link**](https://e.com)", "<a href=\"https://e.com\"><b>bold link</b></a>"},
      {"see https://x.org/_a_b_/*c* now", "see https://x.org/_a_b_/*c* now"},
      {"[w](https://x.org/Foo_(bar))", "<a href=\"https://x.org/Foo_(bar)\">w</a>"},
      {"# Title", "<b>Title</b>"},
      {"### Sub *title* ###", "<b>Sub <i>title</i></b>"},
      {"- one\n- two\n  * nested", "• one\n• two\n  • nested"},
      {"1. first\n2. second", "1. first\n2. second"},
      {"> quoted\n> more\nafter", "<blockquote>quoted\nmore</blockquote>\nafter"},
      {"**>hidden\n>more||", "<blockquote expandable>hidden\nmore</blockquote>"},
      {"```python\nprint(1<2)\n```",
       "<pre><code class=\"language-python\">print(1&lt;2)</code></pre>"},
      {"```\nplain **code**\n```", "<pre>plain **code**</pre>"},
      {"intro\n```\nnever closed <", "intro\n<pre>never closed &lt;</pre>"},
      {"para one\n\npara two", "para one\n\npara two"},
  };
  for (const Row& row : rows) {
    INFO(row.markdown);
    CHECK(renderHtml(row.markdown) == row.html);
  }
}

TEST_CASE("rendered HTML is always accepted by Telegram's entity parser", "[telegram][render]") {
  const char* tokens[] = {"**", "*",  "_",  "__", "`",     "```", "```py\n", "[a](http://x)",
                          "](", "<",  ">",  "&",  "&amp;", "\n",  "\n\n",    "word ",
                          " ",  "# ", "- ", "> ", "**>",   "~~",  "\\",      "||",
                          "é",  "😀"};
  std::mt19937 random(12345);
  std::uniform_int_distribution<std::size_t> pick(0, std::size(tokens) - 1);
  for (int round = 0; round < 3000; ++round) {
    std::string markdown;
    for (int k = 0; k < 24; ++k) markdown += tokens[pick(random)];
    INFO(markdown);
    shown(renderHtml(markdown));
  }
}

TEST_CASE("long replies split into parts that fit 4096 characters and keep every word",
          "[telegram][split]") {
  std::string markdown;
  for (int k = 0; k < 900; ++k) {
    markdown += "**w" + std::to_string(k) + "** & <text> ";
    if (k % 7 == 0) markdown += "\n";
    if (k % 50 == 0) markdown += "\n```cpp\nint w = " + std::to_string(k) + ";\n";
    if (k % 50 == 10) markdown += "```\n\n";
  }
  auto parts = renderParts(markdown);
  REQUIRE(parts.size() >= 2);
  std::string all;
  for (const auto& part : parts) {
    std::string visible = shown(part.html);
    CHECK(gantry::fakes::utf16Length(visible) <= 4096);
    CHECK(part.markdown.size() <= 4096);
    all += visible + "\n";
  }
  for (int k = 0; k < 900; ++k) {
    INFO(k);
    std::string word = "w" + std::to_string(k);  // inside code fences the ** stay literal
    CHECK((all.find(word + " ") != std::string::npos || all.find(word + "*") != std::string::npos));
  }
}

TEST_CASE("a paragraph of escapes that grows when rendered still fits", "[telegram][split]") {
  std::string markdown;
  for (int k = 0; k < 3000; ++k) markdown += "- a\n---\n";
  for (const auto& part : renderParts(markdown)) {
    CHECK(gantry::fakes::utf16Length(shown(part.html)) <= 4096);
  }
}

TEST_CASE("blank text renders to no parts", "[telegram][split]") {
  CHECK(renderParts("").empty());
  CHECK(renderParts("\n\n  \n").empty());
}

TEST_CASE("detail lines become an expandable quote that renders as one", "[telegram][render]") {
  std::string quote = gantry::telegram::expandableQuote("ts: 1\nerror: HTTP 500");
  CHECK(quote == "**>ts: 1\n>error: HTTP 500||");
  CHECK(renderHtml(quote) == "<blockquote expandable>ts: 1\nerror: HTTP 500</blockquote>");
}
