#pragma once
/// Tool-name repair helpers (DESIGN 4.1): the normalisations a misspelt name is compared
/// under, and edit distance for the closest candidates. Pure.

#include <string>
#include <string_view>
#include <vector>

namespace gantry::tools {

/// Lowercase, '-' and ' ' as '_'.
std::string foldName(std::string_view name);
/// The name without what models put in front of it: a `functions.`-style namespace
/// (anything up to the last '.'), and a `{prefix}__` (up to the first "__").
std::string bareToolName(std::string_view name);
/// Levenshtein distance.
std::size_t editDistance(std::string_view a, std::string_view b);
/// The name with its first "__" (between prefix and tool) as one '_', folded:
/// `everything__echo` → `everything_echo`.
std::string singleUnderscoreName(std::string_view name);
/// Up to `limit` names from `names` close enough to `requested` to be meant, closest first
/// (ties by name): the folded edit distance of the whole names, or of their bare tool names,
/// is at most a third of the requested name's length (at least 1). None when nothing is that
/// close.
std::vector<std::string> closestNames(std::string_view requested,
                                      const std::vector<std::string>& names, std::size_t limit);

}  // namespace gantry::tools
