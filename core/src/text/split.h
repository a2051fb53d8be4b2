#pragma once
/// Splitting long replies for platforms with a message-size limit. Linked statically into
/// the core and into channel modules (it has no dependencies).

#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

namespace gantry::text {

/// Splits text into parts of at most limit bytes, preferring paragraph breaks, then line
/// breaks, then spaces; never inside a UTF-8 sequence. A ``` code fence open at a cut is
/// closed at the end of one part and reopened at the start of the next, so markup stays
/// balanced. limit must be at least 16. Empty text yields no parts.
std::vector<std::string> splitMessage(std::string_view text, std::size_t limit);

/// Where splitMessage would cut text for a part of at most limit bytes: after a paragraph
/// break, line break or space in the second half of the window, else at a UTF-8 boundary.
std::size_t cutPoint(std::string_view text, std::size_t limit);

/// The longest prefix of text that is at most limit bytes and ends on a UTF-8 boundary; where
/// the text is not UTF-8 (no lead byte in the last four), exactly limit bytes.
std::size_t utf8Prefix(std::string_view text, std::size_t limit);

}  // namespace gantry::text
