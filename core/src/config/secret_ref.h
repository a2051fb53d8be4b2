#pragma once
/// `secret://NAME` references are meant to be resolved from the vault, which this version
/// does not have yet. Until it does, a value holding one must fail boot rather than be used
/// literally (as a token, a header or a child's environment). Header-only and pure, so the
/// config, module loader and manifest code share one wording without a link dependency.

#include <optional>
#include <string>
#include <string_view>

namespace gantry::config {

/// Whether value holds a reference anywhere ("Bearer secret://daemon_token" does).
inline bool holdsSecretRef(std::string_view value) {
  return value.find("secret://") != std::string_view::npos;
}

/// Why such a value is refused, to follow the name of the variable or key.
inline std::string secretRefReason(std::string_view value) {
  return "\"" + std::string(value) +
         "\" holds a secret:// reference, which this version cannot resolve yet (no vault): "
         "set the value itself";
}

/// The boot error for value found at where (a variable or a manifest key), or nullopt when
/// value holds no secret reference.
inline std::optional<std::string> unresolvedSecret(std::string_view where, std::string_view value) {
  if (!holdsSecretRef(value)) return std::nullopt;
  return std::string(where) + ": " + secretRefReason(value);
}

}  // namespace gantry::config
