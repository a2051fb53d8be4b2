#pragma once
/// `secret://NAME` references: any value the host or a module reads, and the manifest's env,
/// headers, args and url, may hold them; they are resolved from the vault at boot and never
/// used literally. Header-only and pure (the vault is reached through a lookup), so the
/// config and manifest code share one parser without a link dependency on the vault.

#include <cctype>
#include <functional>
#include <optional>
#include <string>
#include <string_view>

#include "gantry/status.h"

namespace gantry::config {

/// The value of a vault secret by name; an error says why there is none (no vault, wrong
/// key, not in the vault). Null when no vault can be consulted at all.
using SecretLookup = std::function<Result<std::string>(std::string_view name)>;

/// Whether value holds a reference anywhere ("Bearer secret://daemon_token" does).
inline bool holdsSecretRef(std::string_view value) {
  return value.find("secret://") != std::string_view::npos;
}

/// value with every `secret://NAME` (NAME: letters, digits, '.', '-', '_') replaced by the
/// secret. The error names where (a variable or a manifest key) and the reference, never a
/// value.
inline Result<std::string> resolveSecretRefs(std::string_view where, std::string_view value,
                                             const SecretLookup& lookup) {
  constexpr std::string_view kScheme = "secret://";
  std::string out;
  for (auto at = value.find(kScheme); at != std::string_view::npos; at = value.find(kScheme)) {
    out.append(value.substr(0, at));
    value.remove_prefix(at + kScheme.size());
    std::size_t length = 0;
    while (length < value.size() &&
           (std::isalnum(static_cast<unsigned char>(value[length])) || value[length] == '_' ||
            value[length] == '.' || value[length] == '-')) {
      ++length;
    }
    const std::string name(value.substr(0, length));
    value.remove_prefix(length);
    if (name.empty()) return Status::error(std::string(where) + ": secret:// without a name");
    if (!lookup) {
      return Status::error(std::string(where) + ": secret://" + name +
                           " cannot be resolved here (no vault)");
    }
    auto secret = lookup(name);
    if (!secret.isOk()) {
      return Status::error(std::string(where) + ": secret://" + name + ": " +
                           secret.status().message());
    }
    out.append(secret.value());
  }
  out.append(value);
  return out;
}

/// The boot error for a value found at where that still holds a reference after resolution
/// (it must never be used as is), or nullopt.
inline std::optional<std::string> unresolvedSecret(std::string_view where, std::string_view value) {
  if (!holdsSecretRef(value)) return std::nullopt;
  return std::string(where) + ": \"" + std::string(value) +
         "\" holds a secret:// reference that was not resolved from the vault";
}

}  // namespace gantry::config
