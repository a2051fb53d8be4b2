#pragma once
/// Splitting long replies for platforms with a message-size limit. Header-only, so the core
/// and channel modules share it without a library (modules include only core/include/gantry/).
/// Pure functions; thread-safe; never throw except std::bad_alloc.

#include <algorithm>
#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

namespace gantry::text {

/// The longest prefix of text that is at most limit bytes and ends on a UTF-8 boundary.
inline std::size_t utf8Prefix(std::string_view text, std::size_t limit) {
  if (text.size() <= limit) return text.size();
  const auto continuation = [&](std::size_t at) {
    return (static_cast<unsigned char>(text[at]) & 0xC0) == 0x80;
  };
  // A UTF-8 character has at most three continuation bytes; a longer run is not UTF-8, and
  // backing up through it could reach 0 and leave a caller cutting nothing forever.
  std::size_t cut = limit;
  while (cut > 0 && limit - cut < 3 && continuation(cut)) --cut;
  return cut == 0 || continuation(cut) ? limit : cut;
}

namespace detail {

inline constexpr std::string_view kFence = "```";

// Best cut at or before limit: the last paragraph break, else line break, else space, in
// the second half of the window so parts do not become tiny; else a hard UTF-8-safe cut.
inline std::size_t findCut(std::string_view text, std::size_t limit) {
  std::string_view window = text.substr(0, limit);
  for (std::string_view sep :
       {std::string_view("\n\n"), std::string_view("\n"), std::string_view(" ")}) {
    auto pos = window.rfind(sep);
    if (pos != std::string_view::npos && pos >= limit / 2) return pos + sep.size();
  }
  return utf8Prefix(text, limit);
}

// True when the text leaves a ``` fence open.
inline bool fenceOpenAfter(std::string_view text) {
  std::size_t count = 0;
  for (auto pos = text.find(kFence); pos != std::string_view::npos;
       pos = text.find(kFence, pos + kFence.size())) {
    ++count;
  }
  return count % 2 == 1;
}

}  // namespace detail

/// Where splitMessage would cut text for a part of at most limit bytes: after a paragraph
/// break, line break or space in the second half of the window, else at a UTF-8 boundary.
inline std::size_t cutPoint(std::string_view text, std::size_t limit) {
  return text.size() <= limit ? text.size() : detail::findCut(text, limit);
}

/// Splits text into parts of at most limit bytes, preferring paragraph breaks, then line
/// breaks, then spaces; never inside a UTF-8 sequence. A ``` code fence open at a cut is
/// closed at the end of one part and reopened at the start of the next, so markup stays
/// balanced. limit must be at least 16. Empty text yields no parts.
inline std::vector<std::string> splitMessage(std::string_view text, std::size_t limit) {
  using detail::kFence;
  std::vector<std::string> parts;
  limit = std::max<std::size_t>(limit, 16);
  bool reopen = false;
  while (!text.empty()) {
    std::string prefix = reopen ? std::string(kFence) + "\n" : std::string();
    std::size_t room = limit - prefix.size() - (kFence.size() + 1);  // room to close a fence
    if (prefix.size() + text.size() <= limit) {
      parts.push_back(prefix + std::string(text));
      break;
    }
    std::size_t cut = detail::findCut(text, room);
    std::string part = prefix + std::string(text.substr(0, cut));
    reopen = detail::fenceOpenAfter(part);
    if (reopen) part += (part.back() == '\n' ? "" : "\n") + std::string(kFence);
    while (!part.empty() && (part.back() == '\n' || part.back() == ' ') && !reopen) part.pop_back();
    parts.push_back(std::move(part));
    text.remove_prefix(cut);
    while (!text.empty() && text.front() == '\n') text.remove_prefix(1);
  }
  return parts;
}

}  // namespace gantry::text
