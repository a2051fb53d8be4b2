#include "app/mcp_sandbox_options.h"

#include <filesystem>

#include "sandbox/server_sandbox.h"

namespace gantry::app {

mcp::McpOptions mcpOptionsFor(const config::Config& config) {
  auto env = config::processEnv();
  mcp::McpOptions options;
  options.sandbox.enabled = config.mcp_sandbox;
  const auto data_dir = std::filesystem::absolute(config.data_dir);
  options.sandbox.state_root = (data_dir / "mcp").string();
  options.sandbox.protected_paths = sandbox::protectedPaths(
      data_dir.string(), config.persona_dir, config.mcp_manifest,
      env("CREDENTIALS_DIRECTORY").value_or(""), env("GANTRY_VAULT_KEY_FILE").value_or(""));
  return options;
}

}  // namespace gantry::app
