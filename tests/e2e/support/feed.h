#pragma once
// A watched feed for the e2e tests: the fake MCP server's `feed` tool reads a file of the
// workspace, which a test rewrites to make items appear.

#include <string>

#include "e2e/support/gantry_process.h"

namespace gantry::e2e {

/// The feed file, relative to the workspace.
inline constexpr const char* kFeedFile = "feed/items.json";

/// Replaces the feed with items_json at once (a rename), so no poll reads half of it.
void setFeed(const Workspace& ws, const std::string& items_json);

/// stdioEnv with the manifest's server "feeds" (the fake MCP server, sandboxed, reading the
/// feed file) and watches allowed to poll every second; the feed starts as items_json.
Env feedEnv(const Workspace& ws, int llm_port, const std::string& items_json);

}  // namespace gantry::e2e
