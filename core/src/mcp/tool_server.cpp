#include "mcp/tool_server.h"

#include <Poco/Exception.h>
#include <Poco/JSON/Array.h>

#include <algorithm>

#include "mcp/jsonrpc.h"

namespace gantry::mcp {
namespace {

constexpr int kParseError = -32700;
constexpr int kInvalidRequest = -32600;
constexpr int kMethodNotFound = -32601;
constexpr int kInvalidParams = -32602;

/// A thrown JSON-RPC error, turned into an error response by dispatch().
struct RpcError {
  int code;
  std::string message;
};

Poco::JSON::Object::Ptr textResult(const ServerToolResult& result) {
  Poco::JSON::Object::Ptr block = new Poco::JSON::Object;
  block->set("type", "text");
  block->set("text", result.text);
  Poco::JSON::Array::Ptr content = new Poco::JSON::Array;
  content->add(block);
  Poco::JSON::Object::Ptr out = new Poco::JSON::Object;
  out->set("content", content);
  out->set("isError", result.is_error);
  return out;
}

}  // namespace

ToolServer::ToolServer(std::string name, std::string version)
    : name_(std::move(name)), version_(std::move(version)) {}

void ToolServer::add(ServerTool tool) { tools_.push_back(std::move(tool)); }

std::string ToolServer::negotiate(const std::string& asked) {
  for (const char* known : jsonrpc::kProtocolVersions) {
    if (asked == known) return known;
  }
  return jsonrpc::kProtocolVersions[0];
}

Poco::JSON::Object::Ptr ToolServer::initialize(const Poco::JSON::Object::Ptr& params) const {
  Poco::JSON::Object::Ptr tools = new Poco::JSON::Object;
  tools->set("listChanged", false);
  Poco::JSON::Object::Ptr capabilities = new Poco::JSON::Object;
  capabilities->set("tools", tools);
  Poco::JSON::Object::Ptr info = new Poco::JSON::Object;
  info->set("name", name_);
  info->set("version", version_);
  Poco::JSON::Object::Ptr result = new Poco::JSON::Object;
  result->set(
      "protocolVersion",
      negotiate(params.isNull() ? "" : params->optValue<std::string>("protocolVersion", "")));
  result->set("capabilities", capabilities);
  result->set("serverInfo", info);
  return result;
}

Poco::JSON::Object::Ptr ToolServer::list() const {
  Poco::JSON::Array::Ptr tools = new Poco::JSON::Array;
  for (const auto& tool : tools_) {
    Poco::JSON::Object::Ptr entry = new Poco::JSON::Object;
    entry->set("name", tool.name);
    entry->set("description", tool.description);
    entry->set("inputSchema", tool.input_schema);
    tools->add(entry);
  }
  Poco::JSON::Object::Ptr result = new Poco::JSON::Object;
  result->set("tools", tools);
  return result;
}

Poco::JSON::Object::Ptr ToolServer::call(const Poco::JSON::Object::Ptr& params) const {
  const auto name = params.isNull() ? "" : params->optValue<std::string>("name", "");
  auto tool = std::find_if(tools_.begin(), tools_.end(),
                           [&](const ServerTool& t) { return t.name == name; });
  if (tool == tools_.end()) throw RpcError{kInvalidParams, "unknown tool: " + name};
  Poco::JSON::Object::Ptr args = params->getObject("arguments");
  if (args.isNull()) args = new Poco::JSON::Object;
  try {
    return textResult(tool->call(args));
  } catch (const Poco::Exception& e) {
    return textResult(ServerToolResult::error(name + ": " + e.displayText()));
  } catch (const std::exception& e) {
    return textResult(ServerToolResult::error(name + ": " + e.what()));
  }
}

std::string ToolServer::dispatch(const Poco::Dynamic::Var& id, const std::string& method,
                                 const Poco::JSON::Object::Ptr& params) const {
  try {
    if (method == "initialize") return jsonrpc::response(id, initialize(params));
    if (method == "ping") return jsonrpc::response(id, new Poco::JSON::Object);
    if (method == "tools/list") return jsonrpc::response(id, list());
    if (method == "tools/call") return jsonrpc::response(id, call(params));
    return jsonrpc::errorResponse(id, kMethodNotFound, "method not found: " + method);
  } catch (const RpcError& e) {
    return jsonrpc::errorResponse(id, e.code, e.message);
  }
}

std::optional<std::string> ToolServer::handle(std::string_view message) const {
  auto parsed = jsonrpc::parse(message);
  if (!parsed.isOk()) return jsonrpc::errorResponse({}, kParseError, parsed.status().message());
  if (parsed->size() != 1) {
    return jsonrpc::errorResponse({}, kInvalidRequest, "batches are not supported");
  }
  const auto& m = parsed->front();
  if (m.kind != jsonrpc::Message::Kind::kRequest) return std::nullopt;
  return dispatch(m.id, m.method, m.params);
}

Poco::JSON::Object::Ptr objectSchema(const Poco::JSON::Object::Ptr& properties,
                                     const std::vector<std::string>& required) {
  Poco::JSON::Array::Ptr names = new Poco::JSON::Array;
  for (const auto& name : required) names->add(name);
  Poco::JSON::Object::Ptr schema = new Poco::JSON::Object;
  schema->set("type", "object");
  schema->set("properties", properties);
  schema->set("required", names);
  schema->set("additionalProperties", false);
  return schema;
}

Poco::JSON::Object::Ptr property(const std::string& type, const std::string& description) {
  Poco::JSON::Object::Ptr p = new Poco::JSON::Object;
  p->set("type", type);
  p->set("description", description);
  return p;
}

}  // namespace gantry::mcp
