#include "common/stdio_server.h"

#include <Poco/Exception.h>
#include <Poco/JSON/Array.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <iostream>

#include "mcp/jsonrpc.h"

namespace gantry::toolserver {
namespace {

namespace rpc = gantry::mcp::jsonrpc;

constexpr int kParseError = -32700;
constexpr int kInvalidRequest = -32600;
constexpr int kMethodNotFound = -32601;
constexpr int kInvalidParams = -32602;
constexpr std::size_t kMaxLine = 8 * 1024 * 1024;

/// A thrown JSON-RPC error, turned into an error response by dispatch().
struct RpcError {
  int code;
  std::string message;
};

Poco::JSON::Object::Ptr textResult(const ToolResult& result) {
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

std::string negotiate(const Poco::JSON::Object::Ptr& params) {
  const auto asked = params.isNull() ? "" : params->optValue<std::string>("protocolVersion", "");
  for (const char* known : mcp::jsonrpc::kProtocolVersions) {
    if (asked == known) return asked;
  }
  return mcp::jsonrpc::kProtocolVersions[0];
}

void writeLine(const std::string& line) { std::cout << line << '\n' << std::flush; }

}  // namespace

StdioServer::StdioServer(std::string name, std::string version)
    : name_(std::move(name)), version_(std::move(version)) {}

void StdioServer::add(Tool tool) { tools_.push_back(std::move(tool)); }

Poco::JSON::Object::Ptr StdioServer::initialize(const Poco::JSON::Object::Ptr& params) const {
  Poco::JSON::Object::Ptr tools = new Poco::JSON::Object;
  tools->set("listChanged", false);
  Poco::JSON::Object::Ptr capabilities = new Poco::JSON::Object;
  capabilities->set("tools", tools);
  Poco::JSON::Object::Ptr info = new Poco::JSON::Object;
  info->set("name", name_);
  info->set("version", version_);
  Poco::JSON::Object::Ptr result = new Poco::JSON::Object;
  result->set("protocolVersion", negotiate(params));
  result->set("capabilities", capabilities);
  result->set("serverInfo", info);
  return result;
}

Poco::JSON::Object::Ptr StdioServer::list() const {
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

Poco::JSON::Object::Ptr StdioServer::call(const Poco::JSON::Object::Ptr& params) const {
  const auto name = params.isNull() ? "" : params->optValue<std::string>("name", "");
  auto tool =
      std::find_if(tools_.begin(), tools_.end(), [&](const Tool& t) { return t.name == name; });
  if (tool == tools_.end()) throw RpcError{kInvalidParams, "unknown tool: " + name};
  Poco::JSON::Object::Ptr args = params->getObject("arguments");
  if (args.isNull()) args = new Poco::JSON::Object;
  try {
    return textResult(tool->call(args));
  } catch (const Poco::Exception& e) {
    return textResult(ToolResult::error(name + ": " + e.displayText()));
  } catch (const std::exception& e) {
    return textResult(ToolResult::error(name + ": " + e.what()));
  }
}

std::string StdioServer::dispatch(const Poco::Dynamic::Var& id, const std::string& method,
                                  const Poco::JSON::Object::Ptr& params) const {
  try {
    if (method == "initialize") return rpc::response(id, initialize(params));
    if (method == "ping") return rpc::response(id, new Poco::JSON::Object);
    if (method == "tools/list") return rpc::response(id, list());
    if (method == "tools/call") return rpc::response(id, call(params));
    return rpc::errorResponse(id, kMethodNotFound, "method not found: " + method);
  } catch (const RpcError& e) {
    return rpc::errorResponse(id, e.code, e.message);
  }
}

std::optional<std::string> StdioServer::handle(std::string_view line) {
  auto parsed = rpc::parse(line);
  if (!parsed.isOk()) return rpc::errorResponse({}, kParseError, parsed.status().message());
  if (parsed->size() != 1)
    return rpc::errorResponse({}, kInvalidRequest, "batches are not supported");
  const auto& message = parsed->front();
  if (message.kind != rpc::Message::Kind::kRequest) return std::nullopt;
  return dispatch(message.id, message.method, message.params);
}

int StdioServer::run(int fd) {
  rpc::LineSplitter splitter(
      kMaxLine,
      [this](std::string_view line) {
        if (line.empty() || line == "\r") return;
        if (auto reply = handle(line)) writeLine(*reply);
      },
      [](std::string_view, std::string_view, std::size_t length) {
        writeLine(rpc::errorResponse(
            {}, kInvalidRequest, "message of " + std::to_string(length) + " bytes is too large"));
      });
  char buffer[65536];
  for (;;) {
    const ssize_t n = ::read(fd, buffer, sizeof buffer);
    if (n == 0) return 0;
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) return 1;
    splitter.feed(std::string_view(buffer, static_cast<std::size_t>(n)));
  }
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

}  // namespace gantry::toolserver
