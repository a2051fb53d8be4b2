#pragma once
/// tsvField: a value made safe for the one-row-per-line, tab-separated output of the CLI
/// commands. Header-only, pure.

#include <string>

namespace gantry::text {

/// text with each tab, CR and LF as a space, so it stays one field of one line.
inline std::string tsvField(std::string text) {
  for (char& c : text) {
    if (c == '\t' || c == '\n' || c == '\r') c = ' ';
  }
  return text;
}

}  // namespace gantry::text
