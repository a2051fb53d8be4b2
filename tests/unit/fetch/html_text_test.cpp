#include "fetch/html_text.h"

#include <catch2/catch.hpp>

using gantry::fetch::htmlToText;

TEST_CASE("HTML is reduced to its readable text, title and links", "[fetch]") {
  const auto page = htmlToText(
      "<!doctype html><html><head><title> The  Page </title><style>p{color:red}</style>"
      "<script>var secret = 1;</script></head><body><h1>Heading</h1><p>First   para"
      "graph with <a href=\"/next\">a link</a>.</p><ul><li>one</li><li>two</li></ul>"
      "<noscript>enable js</noscript><p>Last</p></body></html>");
  CHECK(page.title == "The Page");
  CHECK(page.text == "Heading\n\nFirst paragraph with a link.\n\n- one\n- two\n\nLast");
  REQUIRE(page.links.size() == 1);
  CHECK(page.links[0].text == "a link");
  CHECK(page.links[0].href == "/next");
}

TEST_CASE("broken HTML is parsed the way a browser would, not by patterns", "[fetch]") {
  const auto page = htmlToText("<p>unclosed <b>bold <i>both</p><p>next &amp; &lt;tag&gt;");
  CHECK(page.text == "unclosed bold both\n\nnext & <tag>");
  CHECK(htmlToText("<script>document.write('<p>hidden</p>')</script>shown").text == "shown");
}

TEST_CASE("preformatted text keeps its whitespace", "[fetch]") {
  CHECK(htmlToText("<pre>a  b\n  c</pre>").text == "a  b\n  c");
}

TEST_CASE("links are capped", "[fetch]") {
  std::string html;
  for (int i = 0; i < 10; ++i) html += "<a href=\"/" + std::to_string(i) + "\">x</a>";
  CHECK(htmlToText(html, 3).links.size() == 3);
}
