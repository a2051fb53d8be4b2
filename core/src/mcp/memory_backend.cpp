#include "mcp/host.h"

namespace gantry::mcp {
namespace {

/// The memory tools, forwarded to one MCP server's tools of the same names, published with
/// the built-in schemas so the prompt does not change with the backend.
class McpMemoryBackend final : public tools::ToolSource {
 public:
  McpMemoryBackend(McpServer* server, std::vector<ToolSchema> schemas)
      : server_(server), schemas_(makeToolList(std::move(schemas))) {}

  ToolList tools() const override { return schemas_; }

  tools::ToolResult call(const std::string& name, const std::string& arguments_json,
                         const tools::CallContext& context) override {
    if (!server_->hasRemoteTool(name)) {
      return {false, "memory backend " + server_->spec().name + " offers no " + name +
                         " tool right now (check MEMORY_BACKEND and the server)"};
    }
    return server_->callRemote(name, arguments_json, context);
  }

  bool serialized() const override { return server_->serialized(); }

 private:
  McpServer* server_;
  ToolList schemas_;
};

}  // namespace

std::unique_ptr<tools::ToolSource> makeMemoryBackend(McpHost& host, const std::string& server,
                                                     std::vector<ToolSchema> schemas,
                                                     std::string* error) {
  auto* found = host.server(server);
  if (found == nullptr) {
    if (error != nullptr) {
      *error = "MEMORY_BACKEND=mcp:" + server + ": no server \"" + server + "\" in the manifest";
    }
    return nullptr;
  }
  if (found->status().state == ServerState::kUp) {
    for (const auto& schema : schemas) {
      if (found->hasRemoteTool(schema.name)) continue;
      if (error != nullptr) {
        *error = "MEMORY_BACKEND=mcp:" + server + ": the server has no " + schema.name + " tool";
      }
      return nullptr;
    }
  }
  return std::make_unique<McpMemoryBackend>(found, std::move(schemas));
}

}  // namespace gantry::mcp
