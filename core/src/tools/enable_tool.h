#pragma once
/// McpEnableTool: the built-in `mcp_enable(server)` of lazy publishing — the model asks for a
/// server's tools, and they are published from its next call in this turn on.

#include <string>
#include <vector>

#include "tools/publication.h"
#include "tools/tool_source.h"

namespace gantry::tools {

/// Thread-safe. publication is not owned and outlives it.
class McpEnableTool final : public ToolSource {
 public:
  explicit McpEnableTool(Publication& publication) : publication_(publication) {}

  ToolList tools() const override;
  /// Enables the server for the calling chat; an unknown name gets the real names back.
  ToolResult call(const std::string& name, const std::string& arguments_json,
                  const CallContext& context) override;

 private:
  Publication& publication_;
};

}  // namespace gantry::tools
