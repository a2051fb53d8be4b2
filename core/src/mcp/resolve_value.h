#pragma once
/// The one place where manifest values (env, headers, args) that may hold `secret://NAME`
/// are resolved before they reach a child process or a request.

#include <string>

namespace gantry::mcp {

/// Returns the value to use for a manifest value. loadManifest() refuses `secret://NAME`
/// references until the vault lands, so today this is the identity; every caller goes
/// through it so the vault has a single hook. Thread-safe, never throws.
std::string resolveValue(const std::string& value);

}  // namespace gantry::mcp
