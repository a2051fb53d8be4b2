#pragma once
/// McpEndpoint: the local API's /mcp — gantry as a Streamable HTTP MCP server (protocol
/// 2025-06-18 and later) for agents on the same host: notify_owner(text), run_task(content,
/// context?, id?) with the task budgets, get_status(). Every answer is a JSON response (no tool
/// here sends a server-initiated message, so GET offers no stream: 405); a session starts
/// with initialize (Mcp-Session-Id) and ends with DELETE.

#include <deque>
#include <functional>
#include <map>
#include <mutex>
#include <string>

#include "api/task_service.h"
#include "mcp/tool_server.h"

namespace gantry::api {

struct McpReply {
  int status = 200;
  std::string body;
  std::map<std::string, std::string> headers;
};

/// What an /mcp request carries besides its body.
struct McpRequest {
  std::string method;            ///< POST, GET, DELETE
  std::string session;           ///< Mcp-Session-Id
  std::string protocol_version;  ///< MCP-Protocol-Version
  std::string body;
};

class McpEndpoint {
 public:
  /// notify sends text to the owner's chat; status answers get_status (a JSON object).
  McpEndpoint(TaskService& tasks, const std::function<Status(const std::string& text)>& notify,
              const std::function<std::string()>& status);
  /// Thread-safe.
  McpReply handle(const McpRequest& request);

 private:
  McpReply post(const McpRequest& request);

  mcp::ToolServer server_;
  std::mutex mutex_;
  std::deque<std::string> sessions_;  ///< open sessions, oldest first
};

}  // namespace gantry::api
