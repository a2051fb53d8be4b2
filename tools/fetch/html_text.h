#pragma once
/// HTML reduced to readable text with a real HTML5 parser (gumbo): scripts, styles and
/// other non-content elements dropped, whitespace collapsed, blocks on their own lines,
/// the title and the links (text and href) kept. Pure.

#include <string>
#include <vector>

namespace gantry::fetch {

struct Link {
  std::string text;
  std::string href;  ///< as written; the caller resolves it against the page URL
};

struct PageText {
  std::string title;
  std::string text;
  std::vector<Link> links;
};

/// Extracts the text of html; at most max_links links are kept.
PageText htmlToText(const std::string& html, std::size_t max_links = 100);

}  // namespace gantry::fetch
