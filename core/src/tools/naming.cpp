#include "tools/naming.h"

#include <cstdint>
#include <cstdio>

namespace gantry::tools {
namespace {

bool safeChar(char c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_' ||
         c == '-';
}

}  // namespace

bool safeToolName(std::string_view name) {
  if (name.empty() || name.size() > kMaxToolNameLength) return false;
  for (char c : name) {
    if (!safeChar(c)) return false;
  }
  return true;
}

std::string stableHash(std::string_view text) {
  std::uint32_t hash = 2166136261u;
  for (unsigned char c : text) {
    hash ^= c;
    hash *= 16777619u;
  }
  char out[9];
  std::snprintf(out, sizeof out, "%08x", hash);
  return out;
}

std::string publishedName(std::string_view prefix, std::string_view tool) {
  std::string full = std::string(prefix) + "__" + std::string(tool);
  std::string name = full;
  for (char& c : name) {
    if (!safeChar(c)) c = '_';
  }
  if (name.size() <= kMaxToolNameLength) return name;
  // Appended in place: GCC 12 at -O3 warns falsely (-Wrestrict) on "_" + a string.
  const std::string hash = stableHash(full);
  name.resize(kMaxToolNameLength - hash.size() - 1);
  name += '_';
  name += hash;
  return name;
}

std::size_t estimateTokens(std::string_view name, std::string_view description,
                           std::string_view parameters_json) {
  const std::size_t chars = name.size() + description.size() + parameters_json.size();
  return (chars + 3) / 4;
}

}  // namespace gantry::tools
