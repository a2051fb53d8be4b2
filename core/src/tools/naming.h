#pragma once
/// Published tool names (DESIGN 4.1): `{prefix}__{tool}`, OpenAI-safe
/// `^[A-Za-z0-9_-]{1,64}$`, longer names shortened with a stable hash suffix. Pure.

#include <string>
#include <string_view>

namespace gantry::tools {

inline constexpr std::size_t kMaxToolNameLength = 64;

/// True when name matches ^[A-Za-z0-9_-]{1,64}$.
bool safeToolName(std::string_view name);

/// The published name of a server's tool: prefix + "__" + tool, with characters outside
/// [A-Za-z0-9_-] replaced by '_'; when longer than 64 characters, cut and ended with '_' and
/// 8 hex digits of a hash of the full unsanitised name (stable across runs and machines).
std::string publishedName(std::string_view prefix, std::string_view tool);

/// FNV-1a 32-bit as 8 lowercase hex digits.
std::string stableHash(std::string_view text);

/// Estimated tokens of a published schema (chars/4, rounded up). An estimate, labelled so.
std::size_t estimateTokens(std::string_view name, std::string_view description,
                           std::string_view parameters_json);

}  // namespace gantry::tools
