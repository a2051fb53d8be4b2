#pragma once
/// UTF-8 checks for text that reaches the model. Pure.

#include <string>
#include <string_view>

namespace gantry::toolserver {

/// True when text is well-formed UTF-8 (no overlongs, surrogates or code points past
/// U+10FFFF).
bool isValidUtf8(std::string_view text);

/// A printable rendering of a name that may hold any bytes: invalid UTF-8 bytes and control
/// characters become \xNN, so the result is valid UTF-8 on one line.
std::string printable(std::string_view name);

}  // namespace gantry::toolserver
