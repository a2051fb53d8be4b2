#include "tools/enable_tool.h"

#include "tools/arguments.h"

namespace gantry::tools {
namespace {

std::string serverNames(const std::vector<ServerListing>& servers) {
  std::string names;
  for (const auto& s : servers) names += (names.empty() ? "" : ", ") + s.name;
  return names.empty() ? "(none)" : names;
}

}  // namespace

ToolList McpEnableTool::tools() const {
  static const ToolList kTools = makeToolList(
      {{"mcp_enable",
        "Publishes the tools of one tool server (listed in the system prompt) from your next "
        "step on.",
        R"({"type":"object","properties":{"server":{"type":"string","description":)"
        R"("the server's name"}},"required":["server"]})"}});
  return kTools;
}

ToolResult McpEnableTool::call(const std::string&, const std::string& arguments_json,
                               const CallContext& context) {
  auto args = parseArguments(arguments_json);
  if (!args.isOk()) return {false, args.status().message()};
  auto server = stringArgument(*args.value(), "server");
  const auto servers = publication_.servers();
  if (server) {
    if (auto refusal = publication_.overCap(context.chat_id, *server)) return {false, *refusal};
  }
  if (!server || !publication_.enable(context.chat_id, *server)) {
    return {false, "error: no tool server named \"" + server.value_or("") +
                       "\"; the servers are: " + serverNames(servers)};
  }
  for (const auto& s : servers) {
    if (s.name == *server) {
      return {true, "enabled " + s.name + ": its " + std::to_string(s.tools) +
                        " tools are available from your next step on"};
    }
  }
  return {true, "enabled " + *server};
}

}  // namespace gantry::tools
