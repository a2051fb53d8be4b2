#pragma once
/// ToolServer: the server side of MCP tools, one message at a time — initialize (with protocol
/// version negotiation), ping, tools/list and tools/call. Transport-free: the bundled stdio
/// servers (tools/common) feed it lines, the local API's /mcp endpoint request bodies.
/// Thread-safe once its tools are added (handlers must be too).

#include <Poco/JSON/Object.h>

#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace gantry::mcp {

/// What a tool call returns: text for the model, and whether it is an error result.
struct ServerToolResult {
  std::string text;
  bool is_error = false;

  static ServerToolResult ok(std::string text) { return {std::move(text), false}; }
  static ServerToolResult error(std::string text) { return {std::move(text), true}; }
};

/// One tool: its published description and JSON Schema, and the handler run for a call.
/// The handler gets the call's arguments (never null) and may throw; a throw becomes an
/// error result naming the tool.
struct ServerTool {
  std::string name;
  std::string description;
  Poco::JSON::Object::Ptr input_schema;
  std::function<ServerToolResult(const Poco::JSON::Object::Ptr& args)> call;
};

class ToolServer final {
 public:
  ToolServer(std::string name, std::string version);

  /// Adds a tool; all are added before the first message.
  void add(ServerTool tool);

  /// Answers one JSON-RPC message: the response, or nullopt for a notification (and for a
  /// response sent to us). Text that is not a JSON-RPC message gets an error response.
  std::optional<std::string> handle(std::string_view message) const;

  /// The protocol version answered to an initialize asking for `asked`: the same when it is
  /// one gantry speaks, else the newest.
  static std::string negotiate(const std::string& asked);

 private:
  Poco::JSON::Object::Ptr initialize(const Poco::JSON::Object::Ptr& params) const;
  Poco::JSON::Object::Ptr list() const;
  Poco::JSON::Object::Ptr call(const Poco::JSON::Object::Ptr& params) const;
  std::string dispatch(const Poco::Dynamic::Var& id, const std::string& method,
                       const Poco::JSON::Object::Ptr& params) const;

  std::string name_;
  std::string version_;
  std::vector<ServerTool> tools_;
};

/// A JSON Schema object for a tool's input: `properties` maps names to schema objects.
Poco::JSON::Object::Ptr objectSchema(const Poco::JSON::Object::Ptr& properties,
                                     const std::vector<std::string>& required);
/// {"type": type, "description": description}.
Poco::JSON::Object::Ptr property(const std::string& type, const std::string& description);

}  // namespace gantry::mcp
