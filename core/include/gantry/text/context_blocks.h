#pragma once
/// The blocks a user message is sent with in front of what the user wrote (DESIGN 4 step 2):
/// the `[memory]` block, then the `[now]` line, each at most once, in that order, and each
/// running through its blank line (a block's lines never hold one). Read by the session's
/// prompt tail and by the store, which records where the user's words begin. Header-only,
/// pure.

#include <cstddef>
#include <string_view>

namespace gantry::text {

inline constexpr std::string_view kMemoryHead = "[memory]\n";
inline constexpr std::string_view kNowHead = "[now] ";

/// The bytes of the leading block of sent that starts with head, through its blank line; 0
/// when sent does not start with one.
constexpr std::size_t leadingBlock(std::string_view sent, std::string_view head) {
  if (sent.substr(0, head.size()) != head) return 0;
  const auto end = sent.find("\n\n");
  return end == std::string_view::npos ? 0 : end + 2;
}

/// Calls row(line) for each line of the `[memory]` block sent begins with, between its head
/// and its blank line; not at all when sent does not begin with one.
template <class Fn>
constexpr void forEachMemoryRow(std::string_view sent, Fn&& row) {
  const std::size_t block = leadingBlock(sent, kMemoryHead);
  if (block == 0) return;
  // Through the last row's "\n", the blank line left out (the head's "\n" starts the search
  // for it, so the span is never negative).
  std::string_view rows = sent.substr(kMemoryHead.size(), block - 1 - kMemoryHead.size());
  while (!rows.empty()) {
    const std::size_t end = rows.find('\n');  // every row ends with one
    row(rows.substr(0, end));
    rows.remove_prefix(end + 1);
  }
}

/// The bytes of sent before what the user wrote: its `[memory]` block, then its `[now]`
/// line. Words of the user's that happen to look like a block further on are the user's.
constexpr std::size_t contextBytes(std::string_view sent) {
  const std::size_t memory = leadingBlock(sent, kMemoryHead);
  return memory + leadingBlock(sent.substr(memory), kNowHead);
}

/// The characters (UTF-8 code points, as SQLite counts them) of text.
constexpr std::size_t utf8Chars(std::string_view text) {
  std::size_t chars = 0;
  for (char c : text) chars += (static_cast<unsigned char>(c) & 0xC0) != 0x80 ? 1 : 0;
  return chars;
}

}  // namespace gantry::text
