#pragma once
/// The bundled tool servers' MCP over stdio: one JSON-RPC message per line (the core's
/// framing), answered in order on the calling thread by the core's mcp::ToolServer.

#include <optional>
#include <string>
#include <string_view>

#include "mcp/tool_server.h"

namespace gantry::toolserver {

using Tool = mcp::ServerTool;
using ToolResult = mcp::ServerToolResult;
using mcp::objectSchema;
using mcp::property;

class StdioServer final {
 public:
  StdioServer(std::string name, std::string version)
      : server_(std::move(name), std::move(version)) {}

  /// Adds a tool; all are added before run().
  void add(Tool tool) { server_.add(std::move(tool)); }

  /// Answers one line of input: the response line, or nullopt for notifications.
  std::optional<std::string> handle(std::string_view line) const { return server_.handle(line); }

  /// Reads requests from fd until end of input, writing responses to stdout. Returns the
  /// process exit code (0 at end of input).
  int run(int fd) const;

 private:
  mcp::ToolServer server_;
};

}  // namespace gantry::toolserver
