#pragma once
/// trim: the one whitespace trim of the core and the modules. Header-only, pure.

#include <string_view>

namespace gantry::text {

/// ASCII whitespace: space, tab, CR, LF, vertical tab, form feed.
inline constexpr std::string_view kSpace = " \t\r\n\v\f";

/// text without leading and trailing ASCII whitespace; a view into text (keep text alive).
constexpr std::string_view trim(std::string_view text) {
  const auto first = text.find_first_not_of(kSpace);
  if (first == std::string_view::npos) return {};
  return text.substr(first, text.find_last_not_of(kSpace) - first + 1);
}

}  // namespace gantry::text
