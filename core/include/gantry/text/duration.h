#pragma once
/// formatDuration: how long something has lasted, for people ("3h 12m", "45s"). Header-only,
/// pure.

#include <cstdint>
#include <string>

namespace gantry::text {

/// ms as its two largest units: "45s", "4m 5s", "3h 12m", "2d 7h".
inline std::string formatDuration(int64_t ms) {
  const int64_t s = ms / 1000;
  if (s < 60) return std::to_string(s) + "s";
  if (s < 3600) return std::to_string(s / 60) + "m " + std::to_string(s % 60) + "s";
  if (s < 86400) return std::to_string(s / 3600) + "h " + std::to_string(s % 3600 / 60) + "m";
  return std::to_string(s / 86400) + "d " + std::to_string(s % 86400 / 3600) + "h";
}

}  // namespace gantry::text
