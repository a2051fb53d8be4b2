#include <Poco/JSON/Object.h>

#include "mcp/host.h"

namespace gantry::mcp {
namespace {

const char* const kMemoryTools[] = {"memory_store", "memory_recall", "memory_forget"};

ToolSchema schemaOf(const std::string& name) {
  if (name == "memory_store") {
    return {
        name, "Store one durable memory (a single atomic statement).",
        R"({"properties":{"content":{"type":"string"},"kind":{"enum":["fact","preference","person","episode","insight"],"type":"string"},"subject":{"type":"string"}},"required":["kind","subject","content"],"type":"object"})"};
  }
  if (name == "memory_recall") {
    return {name, "Search stored memories.",
            R"({"properties":{"query":{"type":"string"}},"required":["query"],"type":"object"})"};
  }
  return {name, "Forget a memory by id or by query.",
          R"({"properties":{"id":{"type":"string"},"query":{"type":"string"}},"type":"object"})"};
}

/// The three memory tools, forwarded to one MCP server's tools of the same names. The
/// published schemas are the built-in ones, so the prompt does not change with the backend.
class McpMemoryBackend final : public tools::ToolSource {
 public:
  explicit McpMemoryBackend(McpServer* server) : server_(server) {}

  std::vector<ToolSchema> tools() const override {
    std::vector<ToolSchema> out;
    for (const char* name : kMemoryTools) out.push_back(schemaOf(name));
    return out;
  }

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
};

}  // namespace

std::unique_ptr<tools::ToolSource> makeMemoryBackend(McpHost& host, const std::string& server,
                                                     std::string* error) {
  auto* found = host.server(server);
  if (found == nullptr) {
    if (error != nullptr) {
      *error = "MEMORY_BACKEND=mcp:" + server + ": no server \"" + server + "\" in the manifest";
    }
    return nullptr;
  }
  if (found->status().state == ServerState::kUp) {
    for (const char* tool : kMemoryTools) {
      if (found->hasRemoteTool(tool)) continue;
      if (error != nullptr) {
        *error = "MEMORY_BACKEND=mcp:" + server + ": the server has no " + tool + " tool";
      }
      return nullptr;
    }
  }
  return std::make_unique<McpMemoryBackend>(found);
}

}  // namespace gantry::mcp
