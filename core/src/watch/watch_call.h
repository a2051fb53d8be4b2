#pragma once
/// Calling a watched tool the way a model's call runs (agent/tool_runner.cpp): found through
/// the tool catalog, refused unless the owner's policy allows it, arguments in their
/// canonical form, the result redacted before anything keeps or shows it.

#include <string>

#include "tools/catalog.h"
#include "tools/tool_source.h"

namespace gantry::watch {

/// Why `tool` cannot be watched now, or "" when it can: no such tool (with the names close
/// to it), its server down, a built-in tool, or a policy other than allow. Thread-safe as
/// the catalog is; never throws.
std::string watchRefusal(const tools::Catalog& catalog, const std::string& tool);

/// The published name `tool` means (repaired as for a model's call), or "" when none.
std::string resolvedName(const tools::Catalog& catalog, const std::string& tool);

/// Runs the watched call: ok=false with the refusal when watchRefusal() is not "", else the
/// tool's result with every secret redacted. Never throws.
tools::ToolResult callWatched(const tools::Catalog& catalog, const std::string& tool,
                              const std::string& arguments, const tools::CallContext& context);

}  // namespace gantry::watch
