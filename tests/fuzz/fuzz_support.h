#pragma once
/// Small helpers shared by the libFuzzer targets: the input as text, a chunking that does not
/// depend on the input's length, and a property check that fails the run loudly.

#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string_view>

namespace gantry::fuzz {

/// The fuzzer's bytes as text; valid for the call only.
inline std::string_view asText(const std::uint8_t* data, std::size_t size) {
  return {reinterpret_cast<const char*>(data), size};
}

/// Calls feed with consecutive pieces of bytes of sizes 1, 2, 3, 5, 8, 13, 1, ... so every
/// framing boundary lands mid-piece somewhere; the pieces together are exactly bytes.
template <typename Feed>
void feedInPieces(std::string_view bytes, Feed&& feed) {
  static constexpr std::size_t kSizes[] = {1, 2, 3, 5, 8, 13};
  std::size_t turn = 0;
  while (!bytes.empty()) {
    const std::size_t size = std::min(kSizes[turn++ % std::size(kSizes)], bytes.size());
    feed(bytes.substr(0, size));
    bytes.remove_prefix(size);
  }
}

/// Aborts (a crash libFuzzer records with its input) when a property does not hold.
inline void require(bool holds, const char* property) {
  if (holds) return;
  std::fprintf(stderr, "fuzz property violated: %s\n", property);
  std::abort();
}

}  // namespace gantry::fuzz
