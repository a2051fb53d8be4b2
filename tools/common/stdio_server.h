#pragma once
/// A small MCP server over stdio shared by the bundled tool servers: initialize (with
/// protocol version negotiation), ping, tools/list and tools/call, one JSON-RPC message per
/// line (the core's framing). Requests are answered in order on the calling thread.

#include <Poco/JSON/Object.h>

#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace gantry::toolserver {

/// What a tool call returns: text for the model, and whether it is an error result.
struct ToolResult {
  std::string text;
  bool is_error = false;

  static ToolResult ok(std::string text) { return {std::move(text), false}; }
  static ToolResult error(std::string text) { return {std::move(text), true}; }
};

/// One tool: its published description and JSON Schema, and the handler run for a call.
/// The handler gets the call's arguments (never null) and may throw; a throw becomes an
/// error result naming the tool.
struct Tool {
  std::string name;
  std::string description;
  Poco::JSON::Object::Ptr input_schema;
  std::function<ToolResult(const Poco::JSON::Object::Ptr& args)> call;
};

/// The server: tools are added before run(); not thread-safe.
class StdioServer final {
 public:
  StdioServer(std::string name, std::string version);

  void add(Tool tool);

  /// Answers one line of input: the response line, or nullopt for notifications.
  std::optional<std::string> handle(std::string_view line);

  /// Reads requests from fd until end of input, writing responses to stdout. Returns the
  /// process exit code (0 at end of input).
  int run(int fd);

 private:
  Poco::JSON::Object::Ptr initialize(const Poco::JSON::Object::Ptr& params) const;
  Poco::JSON::Object::Ptr list() const;
  Poco::JSON::Object::Ptr call(const Poco::JSON::Object::Ptr& params) const;
  std::string dispatch(const Poco::Dynamic::Var& id, const std::string& method,
                       const Poco::JSON::Object::Ptr& params) const;

  std::string name_;
  std::string version_;
  std::vector<Tool> tools_;
};

/// A JSON Schema object for a tool's input: `properties` maps names to schema objects.
Poco::JSON::Object::Ptr objectSchema(const Poco::JSON::Object::Ptr& properties,
                                     const std::vector<std::string>& required);
/// {"type": type, "description": description}.
Poco::JSON::Object::Ptr property(const std::string& type, const std::string& description);

}  // namespace gantry::toolserver
