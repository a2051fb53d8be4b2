#include "fetch/html_text.h"

#include <gumbo.h>

#include <cctype>

namespace gantry::fetch {
namespace {

bool skipped(GumboTag tag) {
  switch (tag) {
    case GUMBO_TAG_SCRIPT:
    case GUMBO_TAG_STYLE:
    case GUMBO_TAG_NOSCRIPT:
    case GUMBO_TAG_TEMPLATE:
    case GUMBO_TAG_HEAD:
    case GUMBO_TAG_SVG:
    case GUMBO_TAG_IFRAME:
    case GUMBO_TAG_OBJECT:
    case GUMBO_TAG_CANVAS: return true;
    default: return false;
  }
}

bool block(GumboTag tag) {
  switch (tag) {
    case GUMBO_TAG_P:
    case GUMBO_TAG_DIV:
    case GUMBO_TAG_BR:
    case GUMBO_TAG_LI:
    case GUMBO_TAG_H1:
    case GUMBO_TAG_H2:
    case GUMBO_TAG_H3:
    case GUMBO_TAG_H4:
    case GUMBO_TAG_H5:
    case GUMBO_TAG_H6:
    case GUMBO_TAG_TR:
    case GUMBO_TAG_UL:
    case GUMBO_TAG_OL:
    case GUMBO_TAG_TABLE:
    case GUMBO_TAG_PRE:
    case GUMBO_TAG_BLOCKQUOTE:
    case GUMBO_TAG_SECTION:
    case GUMBO_TAG_ARTICLE:
    case GUMBO_TAG_HEADER:
    case GUMBO_TAG_FOOTER:
    case GUMBO_TAG_NAV:
    case GUMBO_TAG_MAIN:
    case GUMBO_TAG_HR:
    case GUMBO_TAG_DT:
    case GUMBO_TAG_DD:
    case GUMBO_TAG_FIGCAPTION: return true;
    default: return false;
  }
}

/// Blocks that end a line without leaving a blank one.
bool lineOnly(GumboTag tag) {
  return tag == GUMBO_TAG_LI || tag == GUMBO_TAG_BR || tag == GUMBO_TAG_TR || tag == GUMBO_TAG_DT ||
         tag == GUMBO_TAG_DD;
}

/// Text being built: collapses runs of whitespace, and blank lines to one.
class TextBuilder {
 public:
  void word(const std::string& text, bool preformatted) {
    for (char c : text) {
      const bool space = std::isspace(static_cast<unsigned char>(c));
      if (preformatted) {
        out_ += c;
      } else if (space) {
        pending_space_ = !out_.empty() && out_.back() != '\n';
      } else {
        if (pending_space_) out_ += ' ';
        pending_space_ = false;
        out_ += c;
      }
    }
  }
  /// Ends the current line; with paragraph, also leaves one blank line.
  void lineBreak(bool paragraph = true) {
    pending_space_ = false;
    while (!out_.empty() && out_.back() == ' ') out_.pop_back();
    if (out_.empty()) return;
    if (out_.back() != '\n') out_ += '\n';
    if (paragraph && !endsWith("\n\n")) out_ += '\n';
  }
  std::string take() {
    lineBreak();
    while (!out_.empty() && out_.back() == '\n') out_.pop_back();
    return out_;
  }

 private:
  bool endsWith(const char* s) const {
    return out_.size() >= 2 && out_.compare(out_.size() - 2, 2, s) == 0;
  }
  std::string out_;
  bool pending_space_ = false;
};

/// The plain text inside node (for a title or a link's text).
std::string innerText(const GumboNode* node) {
  if (node->type == GUMBO_NODE_TEXT || node->type == GUMBO_NODE_WHITESPACE)
    return node->v.text.text;
  if (node->type != GUMBO_NODE_ELEMENT) return "";
  std::string out;
  const GumboVector& children = node->v.element.children;
  for (unsigned i = 0; i < children.length; ++i)
    out += innerText(static_cast<GumboNode*>(children.data[i]));
  return out;
}

std::string collapsed(const std::string& text) {
  TextBuilder b;
  b.word(text, false);
  return b.take();
}

struct Walker {
  std::size_t max_links;
  PageText page;
  TextBuilder text;

  void element(const GumboNode* node, bool pre) {
    const GumboElement& el = node->v.element;
    if (el.tag == GUMBO_TAG_TITLE && page.title.empty()) page.title = collapsed(innerText(node));
    if (skipped(el.tag)) return;
    if (el.tag == GUMBO_TAG_A) link(node);
    const bool line = lineOnly(el.tag);
    if (block(el.tag)) text.lineBreak(!line);
    if (el.tag == GUMBO_TAG_LI) text.word("- ", true);
    const bool inner_pre = pre || el.tag == GUMBO_TAG_PRE;
    for (unsigned i = 0; i < el.children.length; ++i)
      visit(static_cast<GumboNode*>(el.children.data[i]), inner_pre);
    if (block(el.tag)) text.lineBreak(!line);
  }
  void link(const GumboNode* node) {
    const GumboAttribute* href = gumbo_get_attribute(&node->v.element.attributes, "href");
    if (href == nullptr || page.links.size() >= max_links) return;
    page.links.push_back({collapsed(innerText(node)), href->value});
  }
  void visit(const GumboNode* node, bool pre) {
    switch (node->type) {
      case GUMBO_NODE_ELEMENT: element(node, pre); break;
      case GUMBO_NODE_TEXT:
      case GUMBO_NODE_CDATA:
      case GUMBO_NODE_WHITESPACE: text.word(node->v.text.text, pre); break;
      default: break;
    }
  }
};

/// The <title> lives in <head>, which the walk skips: look for it there.
void findTitle(const GumboNode* node, PageText* page) {
  if (node->type != GUMBO_NODE_ELEMENT || !page->title.empty()) return;
  if (node->v.element.tag == GUMBO_TAG_TITLE) {
    page->title = collapsed(innerText(node));
    return;
  }
  const GumboVector& children = node->v.element.children;
  for (unsigned i = 0; i < children.length; ++i)
    findTitle(static_cast<GumboNode*>(children.data[i]), page);
}

}  // namespace

PageText htmlToText(const std::string& html, std::size_t max_links) {
  GumboOutput* output = gumbo_parse_with_options(&kGumboDefaultOptions, html.data(), html.size());
  Walker walker{max_links, {}, {}};
  findTitle(output->root, &walker.page);
  walker.visit(output->root, false);
  gumbo_destroy_output(&kGumboDefaultOptions, output);
  walker.page.text = walker.text.take();
  return walker.page;
}

}  // namespace gantry::fetch
