#pragma once
/// McpHost: every server of the manifest, supervised, as ToolSources for the catalog;
/// plus `gantry auth NAME` and MEMORY_BACKEND=mcp:<server>.

#include <memory>
#include <string>
#include <vector>

#include "mcp/manifest.h"
#include "mcp/options.h"
#include "mcp/server.h"
#include "tools/tool_source.h"

namespace gantry::mcp {

/// Owns one McpServer per manifest entry. Thread-safe after start().
class McpHost {
 public:
  /// Starts every server, waits up to options.boot_wait in total for them and logs
  /// tools_listed / tools_published / est_tokens (TOOL_SCHEMA_MAX_TOKENS is
  /// tools::Publication's). A server that fails or is slow does not fail start(): it keeps
  /// being restarted and its tools join the catalog when it comes up.
  /// With options.sandbox on, fails before starting anything when the kernel offers no
  /// Landlock or a server's grant would expose a protected path.
  static Result<std::unique_ptr<McpHost>> start(const Manifest& manifest, McpOptions options);
  ~McpHost();
  McpHost(const McpHost&) = delete;
  McpHost& operator=(const McpHost&) = delete;

  /// One ToolSource per server, in manifest order (owned by the host; valid until it is
  /// destroyed). Add them to the tools::Catalog.
  std::vector<tools::ToolSource*> sources();
  /// The server called name, or null.
  McpServer* server(const std::string& name);
  /// Published tools with estimated tokens, one per line, grouped by server, each server
  /// with its state and last error (for `gantry tools`; /status and /tools read the catalog).
  std::string describeTools() const;
  /// Estimated tokens (chars/4) of every published MCP schema right now.
  std::size_t estimatedTokens() const;
  /// Stops every server: closes stdio children, DELETEs HTTP sessions. Idempotent.
  void shutdown();

 private:
  McpHost() = default;
  std::vector<std::unique_ptr<McpServer>> servers_;
};

/// `gantry auth NAME`: runs the server's auth_command with auth_args on our terminal, in
/// the server's environment (minimal + manifest env) and, for a stdio server with the
/// sandbox on, in its sandbox with its state directory as HOME. Returns its exit code; 1
/// with a message on stderr when the server is unknown, has no auth_command, or cannot start.
int authCommand(const Manifest& manifest, const std::string& name, McpOptions options = {});

/// MEMORY_BACKEND=mcp:<server>: the memory tools (published with `schemas`, the built-in
/// ones) forwarded to the server's tools of the same names. Null (with *error set) when the
/// server is not in the manifest, or is up and lacks one of the tools; a server not up yet
/// is accepted and each call then fails with a clear error until it offers the tools.
std::unique_ptr<tools::ToolSource> makeMemoryBackend(McpHost& host, const std::string& server,
                                                     std::vector<ToolSchema> schemas,
                                                     std::string* error = nullptr);

}  // namespace gantry::mcp
