// Markdown → Telegram HTML. Block structure is handled line by line (fences, quotes,
// headings, lists); inline spans are rendered recursively so every tag is closed inside
// the span that opened it and the output is balanced by construction.

#include <algorithm>
#include <cctype>

#include "gantry/text/split.h"
#include "gantry/text/trim.h"
#include "telegram_api.h"

namespace gantry::telegram {
namespace {

bool isSpace(char c) { return c == ' ' || c == '\t'; }
bool isWordChar(char c) {
  return std::isalnum(static_cast<unsigned char>(c)) != 0 || (static_cast<unsigned char>(c) & 0x80);
}
bool isPunct(char c) { return std::ispunct(static_cast<unsigned char>(c)) != 0; }

using text::trim;

std::size_t runLength(std::string_view s, std::size_t i, char c) {
  std::size_t n = 0;
  while (i + n < s.size() && s[i + n] == c) ++n;
  return n;
}

std::string renderInline(std::string_view s);

// Finds the closing delimiter of an emphasis span opened at `from`, skipping code spans;
// a single-char delimiter does not close inside a longer run of the same char.
std::size_t findClose(std::string_view s, std::size_t from, std::string_view delim) {
  for (std::size_t j = from; j < s.size();) {
    if (s[j] == '`') {
      std::size_t n = runLength(s, j, '`');
      auto end = s.find(std::string(n, '`'), j + n);
      j = end == std::string_view::npos ? j + n : end + n;
      continue;
    }
    if (s[j] == delim[0]) {
      std::size_t n = runLength(s, j, delim[0]);
      if (n == delim.size() || (delim.size() > 1 && n > delim.size())) return j;
      j += n;
      continue;
    }
    ++j;
  }
  return std::string_view::npos;
}

struct Span {
  std::size_t consumed = 0;  // 0: no span here
  std::string html;
};

Span codeSpan(std::string_view s, std::size_t i) {
  std::size_t n = runLength(s, i, '`');
  auto end = s.find(std::string(n, '`'), i + n);
  if (end == std::string_view::npos) return {n, std::string(n, '`')};
  std::string_view code = s.substr(i + n, end - i - n);
  if (code.size() > 2 && code.front() == ' ' && code.back() == ' ')
    code = code.substr(1, code.size() - 2);
  if (code.empty()) return {end + n - i, std::string(end + n - i, '`')};
  return {end + n - i, "<code>" + escapeHtml(code) + "</code>"};
}

// **bold**, __bold__, *italic*, _italic_, ~~strike~~, ***bold italic***.
Span emphasisSpan(std::string_view s, std::size_t i) {
  char c = s[i];
  std::size_t run = std::min<std::size_t>(runLength(s, i, c), 3);
  if (c == '~' && run < 2) return {};
  if (c == '~') run = 2;
  if (c == '_' && i > 0 && isWordChar(s[i - 1])) return {};
  std::string delim(run, c);
  std::size_t start = i + run;
  if (start >= s.size() || isSpace(s[start])) return {};
  std::size_t close = findClose(s, start, delim);
  if (close == std::string_view::npos || close == start || isSpace(s[close - 1])) return {};
  if (c == '_' && close + run < s.size() && isWordChar(s[close + run])) return {};
  std::string inner = renderInline(s.substr(start, close - start));
  std::string html;
  if (c == '~')
    html = "<s>" + inner + "</s>";
  else if (run == 1)
    html = "<i>" + inner + "</i>";
  else if (run == 2)
    html = "<b>" + inner + "</b>";
  else
    html = "<b><i>" + inner + "</i></b>";
  return {close + run - i, html};
}

// Index of the bracket closing the one at i (nesting aware), or npos.
std::size_t matchBracket(std::string_view s, std::size_t i, char open, char close) {
  int depth = 0;
  for (std::size_t j = i; j < s.size(); ++j) {
    if (s[j] == '\\')
      ++j;
    else if (s[j] == open)
      ++depth;
    else if (s[j] == close && --depth == 0)
      return j;
  }
  return std::string_view::npos;
}

// [text](url "title") and ![alt](url); images become links (photos are the core's job).
Span linkSpan(std::string_view s, std::size_t i) {
  bool image = s[i] == '!';
  std::size_t open = image ? i + 1 : i;
  std::size_t close = matchBracket(s, open, '[', ']');
  if (close == std::string_view::npos || close + 1 >= s.size() || s[close + 1] != '(') return {};
  std::size_t paren = matchBracket(s, close + 1, '(', ')');
  if (paren == std::string_view::npos) return {};
  std::string_view target = trim(s.substr(close + 2, paren - close - 2));
  std::string_view url = target.substr(0, std::min(target.find(' '), target.size()));
  if (url.empty()) return {};
  std::string_view label = s.substr(open + 1, close - open - 1);
  std::string inner = label.empty() ? escapeHtml(url) : renderInline(label);
  return {paren + 1 - i, "<a href=\"" + escapeHtml(url) + "\">" + inner + "</a>"};
}

// A bare URL stays literal (Telegram links it): its _ and * are not emphasis.
Span urlSpan(std::string_view s, std::size_t i) {
  std::string_view rest = s.substr(i);
  if (rest.rfind("http://", 0) != 0 && rest.rfind("https://", 0) != 0) return {};
  if (i > 0 && (isWordChar(s[i - 1]) || s[i - 1] == '(' || s[i - 1] == '[')) return {};
  std::size_t end = i;
  while (end < s.size() && !isSpace(s[end]) && s[end] != '\n' && s[end] != '<' && s[end] != '>')
    ++end;
  return {end - i, escapeHtml(s.substr(i, end - i))};
}

Span spanAt(std::string_view s, std::size_t i) {
  char c = s[i];
  if (c == 'h') return urlSpan(s, i);
  if (c == '\\' && i + 1 < s.size() && isPunct(s[i + 1]))
    return {2, escapeHtml(s.substr(i + 1, 1))};
  if (c == '`') return codeSpan(s, i);
  if (c == '*' || c == '_' || c == '~') return emphasisSpan(s, i);
  if (c == '[' || (c == '!' && i + 1 < s.size() && s[i + 1] == '[')) return linkSpan(s, i);
  return {};
}

std::string renderInline(std::string_view s) {
  std::string out;
  out.reserve(s.size() + 16);
  for (std::size_t i = 0; i < s.size();) {
    Span span = spanAt(s, i);
    if (span.consumed > 0) {
      out += span.html;
      i += span.consumed;
      continue;
    }
    // An unmatched delimiter run is literal as a whole, so "**" never half-matches later.
    std::size_t n = (s[i] == '*' || s[i] == '_' || s[i] == '~') ? runLength(s, i, s[i]) : 1;
    out += escapeHtml(s.substr(i, n));
    i += n;
  }
  return out;
}

// ---- blocks -------------------------------------------------------------------------

struct Fence {
  char marker = 0;
  std::size_t length = 0;
  std::string language;
  std::string code;
};

std::optional<Fence> fenceOpen(std::string_view line) {
  std::string_view t = trim(line);
  if (t.size() < 3 || (t[0] != '`' && t[0] != '~')) return std::nullopt;
  std::size_t n = runLength(t, 0, t[0]);
  if (n < 3) return std::nullopt;
  Fence fence{t[0], n, "", ""};
  for (char c : trim(t.substr(n))) {
    if (isSpace(c)) break;
    if (std::isalnum(static_cast<unsigned char>(c)) || c == '_' || c == '+' || c == '#' ||
        c == '-' || c == '.') {
      fence.language += c;
    }
  }
  return fence;
}

bool fenceCloses(const Fence& fence, std::string_view line) {
  std::string_view t = trim(line);
  return runLength(t, 0, fence.marker) >= fence.length && trim(t.substr(fence.length)).empty() &&
         t.find_first_not_of(fence.marker) == std::string_view::npos;
}

std::string renderFence(const Fence& fence) {
  std::string code = fence.code;
  if (!code.empty() && code.back() == '\n') code.pop_back();
  if (fence.language.empty()) return "<pre>" + escapeHtml(code) + "</pre>";
  return "<pre><code class=\"language-" + fence.language + "\">" + escapeHtml(code) +
         "</code></pre>";
}

bool isRule(std::string_view t) {
  if (t.size() < 3 || (t[0] != '-' && t[0] != '*' && t[0] != '_')) return false;
  std::size_t marks = 0;
  for (char c : t) {
    if (c == t[0])
      ++marks;
    else if (!isSpace(c))
      return false;
  }
  return marks >= 3;
}

std::string renderLine(std::string_view line) {
  std::string_view t = trim(line);
  if (isRule(t)) return "———";
  std::size_t hashes = runLength(t, 0, '#');
  if (hashes >= 1 && hashes <= 6 && hashes < t.size() && isSpace(t[hashes])) {
    std::string_view title = trim(t.substr(hashes));
    while (!title.empty() && title.back() == '#') title.remove_suffix(1);
    return "<b>" + renderInline(trim(title)) + "</b>";
  }
  std::size_t indent = line.find_first_not_of(" \t");
  if (indent != std::string_view::npos && indent + 1 < line.size() &&
      (line[indent] == '-' || line[indent] == '*' || line[indent] == '+') &&
      isSpace(line[indent + 1])) {
    return std::string(line.substr(0, indent)) + "• " + renderInline(trim(line.substr(indent + 2)));
  }
  return renderInline(line);
}

// Accumulates the output; quotes are collected so one <blockquote> wraps the whole run.
class BlockWriter {
 public:
  void line(const std::string& html) {
    flushQuote();
    add(html);
  }
  void quoteLine(std::string_view text, bool starts_expandable) {
    if (!in_quote_) expandable_ = starts_expandable;
    in_quote_ = true;
    if (expandable_ && text.size() >= 2 && text.substr(text.size() - 2) == "||") {
      text.remove_suffix(2);
    }
    quote_.push_back(renderLine(text));
  }
  std::string finish() {
    flushQuote();
    return out_;
  }

 private:
  void add(const std::string& html) {
    if (!first_) out_ += '\n';
    first_ = false;
    out_ += html;
  }
  void flushQuote() {
    if (!in_quote_) return;
    std::string body;
    for (std::size_t k = 0; k < quote_.size(); ++k) body += (k ? "\n" : "") + quote_[k];
    add((expandable_ ? "<blockquote expandable>" : "<blockquote>") + body + "</blockquote>");
    quote_.clear();
    in_quote_ = false;
  }

  std::string out_;
  bool first_ = true;
  bool in_quote_ = false;
  bool expandable_ = false;
  std::vector<std::string> quote_;
};

std::string_view quoteText(std::string_view t, std::size_t marker) {
  t.remove_prefix(marker);
  if (!t.empty() && t.front() == ' ') t.remove_prefix(1);
  return t;
}

}  // namespace

std::string escapeHtml(std::string_view text) {
  std::string out;
  out.reserve(text.size());
  for (char c : text) {
    switch (c) {
      case '&': out += "&amp;"; break;
      case '<': out += "&lt;"; break;
      case '>': out += "&gt;"; break;
      case '"': out += "&quot;"; break;
      default: out += c;
    }
  }
  return out;
}

std::string renderHtml(std::string_view markdown) {
  BlockWriter writer;
  std::optional<Fence> fence;
  while (true) {
    auto nl = markdown.find('\n');
    std::string_view line = markdown.substr(0, nl);
    if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
    std::string_view t = trim(line);
    if (fence) {
      if (fenceCloses(*fence, line)) {
        writer.line(renderFence(*fence));
        fence.reset();
      } else {
        fence->code += std::string(line) + "\n";
      }
    } else if (auto open = fenceOpen(line)) {
      fence = std::move(open);
    } else if (t.rfind("**>", 0) == 0) {
      writer.quoteLine(quoteText(t, 3), true);
    } else if (!t.empty() && t.front() == '>') {
      writer.quoteLine(quoteText(t, 1), false);
    } else {
      writer.line(renderLine(line));
    }
    if (nl == std::string_view::npos) break;
    markdown.remove_prefix(nl + 1);
  }
  if (fence) writer.line(renderFence(*fence));
  return writer.finish();
}

std::size_t visibleLength(std::string_view html) {
  std::size_t units = 0;
  for (std::size_t i = 0; i < html.size();) {
    char c = html[i];
    if (c == '<') {
      auto end = html.find('>', i);
      i = end == std::string_view::npos ? html.size() : end + 1;
      continue;
    }
    if (c == '&') {
      auto end = html.find(';', i);
      if (end != std::string_view::npos && end - i <= 10) {
        ++units;
        i = end + 1;
        continue;
      }
    }
    auto byte = static_cast<unsigned char>(c);
    if ((byte & 0xC0) != 0x80) units += byte >= 0xF0 ? 2 : 1;
    ++i;
  }
  return units;
}

std::vector<Part> renderParts(std::string_view markdown, std::size_t limit) {
  std::vector<Part> parts;
  for (std::string& piece : text::splitMessage(markdown, limit)) {
    if (piece.find_first_not_of(" \t\r\n") == std::string::npos) continue;
    std::string html = renderHtml(piece);
    std::size_t shown = visibleLength(html);
    if (shown <= limit || piece.size() <= 16) {
      parts.push_back({std::move(piece), std::move(html)});
      continue;
    }
    // Rendering added characters (rules, bullets): split this piece finer.
    std::size_t finer = std::max<std::size_t>(16, piece.size() * limit / shown - 16);
    for (Part& sub : renderParts(piece, std::min(finer, piece.size() - 1))) {
      parts.push_back(std::move(sub));
    }
  }
  return parts;
}

std::string expandableQuote(std::string_view lines) {
  std::string out = "**>";
  for (char c : lines) out += c == '\n' ? std::string("\n>") : std::string(1, c);
  return out + "||";
}

}  // namespace gantry::telegram
