#pragma once
/// The sandbox of the manifest's stdio servers: checked once before any starts (fail
/// closed), then one plan per server for its transport.

#include "gantry/status.h"
#include "mcp/manifest.h"
#include "mcp/options.h"
#include "sandbox/server_sandbox.h"

namespace gantry::mcp {

/// With the sandbox on and a stdio server in the manifest: finds the kernel's Landlock ABI
/// (an error naming MCP_SANDBOX=off when there is none) and checks every server's grants.
/// Sets options->landlock_abi. With it off, logs that servers run unsandboxed.
Status prepareSandbox(const Manifest& manifest, McpOptions* options);

/// The plan server runs in (options prepared by prepareSandbox, sandbox on).
sandbox::ServerPlan sandboxPlan(const ServerSpec& server, const McpOptions& options);

}  // namespace gantry::mcp
