#include "mcp/sandboxing.h"

#include <algorithm>

#include "log/log.h"
#include "sandbox/landlock.h"

namespace gantry::mcp {

Status prepareSandbox(const Manifest& manifest, McpOptions* options) {
  const bool any_stdio = std::any_of(manifest.servers.begin(), manifest.servers.end(),
                                     [](const ServerSpec& s) { return s.isStdio(); });
  if (!any_stdio) return Status::ok();
  if (!options->sandbox.enabled) {
    log::warn("mcp_sandbox_off", {{"meaning",
                                   "every MCP server is trusted with every secret of "
                                   "this instance (MCP_SANDBOX=off)"}});
    return Status::ok();
  }
  auto abi = sandbox::landlockAbi();
  if (!abi.isOk()) {
    return Status::error("MCP_SANDBOX: " + abi.status().message() +
                         ", so stdio MCP servers cannot start sandboxed; MCP_SANDBOX=off runs "
                         "them unsandboxed, trusting every server with every secret of this "
                         "instance");
  }
  for (const auto& server : manifest.servers) {
    if (!server.isStdio()) continue;
    if (Status s = sandbox::checkGrants(server.name, server.sandbox, options->sandbox); !s.isOk()) {
      return Status::error(manifest.path + ": " + s.message());
    }
  }
  options->landlock_abi = abi.value();
  log::info("mcp_sandbox", {{"landlock_abi", std::to_string(abi.value())},
                            {"scoped_signals", abi.value() >= 6 ? "true" : "false"}});
  return Status::ok();
}

sandbox::ServerPlan sandboxPlan(const ServerSpec& server, const McpOptions& options) {
  sandbox::ServerPlan plan;
  plan.abi = options.landlock_abi;
  plan.state_dir = sandbox::stateDir(options.sandbox, server.name);
  plan.grants = server.sandbox;
  plan.protected_paths = options.sandbox.protected_paths;
  return plan;
}

}  // namespace gantry::mcp
