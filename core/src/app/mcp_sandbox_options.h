#pragma once
/// The MCP host's options for this instance: MCP_SANDBOX and the paths no server may reach.

#include "config/config.h"
#include "mcp/options.h"

namespace gantry::app {

/// Sandbox on unless MCP_SANDBOX=off; servers' state beneath $DATA_DIR/mcp; protected:
/// DATA_DIR, PERSONA_DIR, MCP_MANIFEST, /etc/gantry, $CREDENTIALS_DIRECTORY and the vault key
/// file's directory.
mcp::McpOptions mcpOptionsFor(const config::Config& config);

}  // namespace gantry::app
