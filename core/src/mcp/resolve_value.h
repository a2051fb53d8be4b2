#pragma once
/// The one place where manifest values (env, headers, args) that may hold `secret://NAME`
/// are resolved before they reach a child process or a request.

#include <string>

namespace gantry::mcp {

/// Returns the value to use for a manifest value. `secret://NAME` references are passed
/// through literally until the vault lands; every caller goes through this function so
/// the vault has a single hook. Thread-safe, never throws.
std::string resolveValue(const std::string& value);

}  // namespace gantry::mcp
