#include "mcp/tool_result.h"

#include <Poco/JSON/Array.h>

#include "mcp/jsonrpc.h"

namespace gantry::mcp {
namespace {

std::size_t decodedSize(const std::string& base64) {
  std::size_t padding = 0;
  if (!base64.empty() && base64.back() == '=') ++padding;
  if (base64.size() > 1 && base64[base64.size() - 2] == '=') ++padding;
  return base64.size() / 4 * 3 - std::min(padding, base64.size() / 4 * 3);
}

std::string summariseBinary(const Poco::JSON::Object::Ptr& block, const std::string& kind) {
  const auto mime = block->optValue<std::string>("mimeType", "application/octet-stream");
  const auto data = block->optValue<std::string>("data", "");
  return "[" + kind + " " + mime + ", " + std::to_string(decodedSize(data)) + " bytes]";
}

std::string describeResource(const Poco::JSON::Object::Ptr& block) {
  auto resource = block->getObject("resource");
  if (resource.isNull()) return "[resource]";
  if (resource->has("text")) return resource->getValue<std::string>("text");
  const auto uri = resource->optValue<std::string>("uri", "");
  return "[resource " + uri + ", " +
         std::to_string(decodedSize(resource->optValue<std::string>("blob", ""))) + " bytes]";
}

std::string describeBlock(const Poco::JSON::Object::Ptr& block) {
  const auto type = block->optValue<std::string>("type", "");
  if (type == "text") return block->optValue<std::string>("text", "");
  if (type == "image" || type == "audio") return summariseBinary(block, type);
  if (type == "resource") return describeResource(block);
  if (type == "resource_link") {
    return "[resource " + block->optValue<std::string>("uri", "") + "]";
  }
  return "[" + (type.empty() ? std::string("unknown") : type) + " content]";
}

std::string joinContent(const Poco::JSON::Array::Ptr& content, bool* has_text) {
  std::string text;
  if (content.isNull()) return text;
  for (std::size_t i = 0; i < content->size(); ++i) {
    auto block = content->getObject(static_cast<unsigned>(i));
    if (block.isNull()) continue;
    if (block->optValue<std::string>("type", "") == "text") *has_text = true;
    if (!text.empty()) text.push_back('\n');
    text += describeBlock(block);
  }
  return text;
}

}  // namespace

tools::ToolResult toToolResult(const Poco::JSON::Object::Ptr& result) {
  if (result.isNull()) return {false, "the server's tools/call result was not an object"};
  tools::ToolResult out;
  out.ok = !result->optValue<bool>("isError", false);
  bool has_text = false;
  out.text = joinContent(result->getArray("content"), &has_text);
  if (!has_text && result->has("structuredContent")) {
    out.text = jsonrpc::stringify(result->get("structuredContent"));
  }
  return out;
}

}  // namespace gantry::mcp
