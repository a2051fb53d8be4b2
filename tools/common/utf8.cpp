#include "common/utf8.h"

#include <cstdint>
#include <cstdio>

namespace gantry::toolserver {
namespace {

/// The length of the well-formed UTF-8 sequence at text[i], or 0 when it is not one.
std::size_t sequenceLength(std::string_view text, std::size_t i) {
  const auto byte = [&](std::size_t k) { return static_cast<std::uint8_t>(text[i + k]); };
  const auto cont = [&](std::size_t k) { return i + k < text.size() && (byte(k) & 0xC0) == 0x80; };
  const std::uint8_t b0 = byte(0);
  if (b0 < 0x80) return 1;
  if (b0 >= 0xC2 && b0 <= 0xDF) return cont(1) ? 2 : 0;
  if (b0 >= 0xE0 && b0 <= 0xEF) {
    if (!cont(1) || !cont(2)) return 0;
    if (b0 == 0xE0 && byte(1) < 0xA0) return 0;   // overlong
    if (b0 == 0xED && byte(1) >= 0xA0) return 0;  // surrogate
    return 3;
  }
  if (b0 >= 0xF0 && b0 <= 0xF4) {
    if (!cont(1) || !cont(2) || !cont(3)) return 0;
    if (b0 == 0xF0 && byte(1) < 0x90) return 0;   // overlong
    if (b0 == 0xF4 && byte(1) >= 0x90) return 0;  // past U+10FFFF
    return 4;
  }
  return 0;
}

std::string hexByte(unsigned char c) {
  char buffer[5];
  std::snprintf(buffer, sizeof buffer, "\\x%02X", c);
  return buffer;
}

}  // namespace

bool isValidUtf8(std::string_view text) {
  for (std::size_t i = 0; i < text.size();) {
    const auto n = sequenceLength(text, i);
    if (n == 0) return false;
    i += n;
  }
  return true;
}

std::string printable(std::string_view name) {
  std::string out;
  for (std::size_t i = 0; i < name.size();) {
    const auto n = sequenceLength(name, i);
    const auto c = static_cast<unsigned char>(name[i]);
    if (n == 0 || (n == 1 && (c < 0x20 || c == 0x7F))) {
      out += hexByte(c);
      ++i;
      continue;
    }
    out.append(name.substr(i, n));
    i += n;
  }
  return out;
}

}  // namespace gantry::toolserver
