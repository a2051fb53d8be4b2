#include "mcp/tool_result.h"

#include <Poco/JSON/Array.h>

#include <algorithm>
#include <cctype>

#include "mcp/jsonrpc.h"

namespace gantry::mcp {
namespace {

constexpr const char* kShownTypes[] = {"image/png", "image/jpeg", "image/gif", "image/webp"};

std::size_t decodedSize(const std::string& base64) {
  std::size_t padding = 0;
  if (!base64.empty() && base64.back() == '=') ++padding;
  if (base64.size() > 1 && base64[base64.size() - 2] == '=') ++padding;
  return base64.size() / 4 * 3 - std::min(padding, base64.size() / 4 * 3);
}

// The data goes into the request as it is: anything but plain base64 is refused, not sent.
bool plainBase64(const std::string& data) {
  return !data.empty() && data.size() % 4 == 0 && std::all_of(data.begin(), data.end(), [](char c) {
    return std::isalnum(static_cast<unsigned char>(c)) || c == '+' || c == '/' || c == '=';
  });
}

/// What one result's blocks add up to, in order.
struct Joined {
  std::string text;
  std::vector<Image> images;
  std::size_t image_bytes = 0;
  bool has_text = false;
};

void append(Joined& out, const std::string& text) {
  if (!out.text.empty()) out.text.push_back('\n');
  out.text += text;
}

void addBinary(Joined& out, const Poco::JSON::Object::Ptr& block, const std::string& kind) {
  const auto mime = block->optValue<std::string>("mimeType", "application/octet-stream");
  const auto data = block->optValue<std::string>("data", "");
  const auto bytes = decodedSize(data);
  std::string note = "[" + kind + " " + mime + ", " + std::to_string(bytes) + " bytes";
  const bool shown_type =
      kind == "image" && plainBase64(data) &&
      std::find(std::begin(kShownTypes), std::end(kShownTypes), mime) != std::end(kShownTypes);
  if (shown_type && out.image_bytes + bytes <= kToolImageMaxBytes) {
    out.image_bytes += bytes;
    out.images.push_back({mime, data, {}});
  } else if (shown_type) {
    note += ", not shown: over the " + std::to_string(kToolImageMaxBytes >> 20) +
            " MiB for a result's images";
  }
  append(out, note + "]");
}

std::string describeResource(const Poco::JSON::Object::Ptr& block) {
  auto resource = block->getObject("resource");
  if (resource.isNull()) return "[resource]";
  if (resource->has("text")) return resource->getValue<std::string>("text");
  const auto uri = resource->optValue<std::string>("uri", "");
  return "[resource " + uri + ", " +
         std::to_string(decodedSize(resource->optValue<std::string>("blob", ""))) + " bytes]";
}

void addBlock(Joined& out, const Poco::JSON::Object::Ptr& block) {
  const auto type = block->optValue<std::string>("type", "");
  if (type == "text") {
    out.has_text = true;
    append(out, block->optValue<std::string>("text", ""));
  } else if (type == "image" || type == "audio") {
    addBinary(out, block, type);
  } else if (type == "resource") {
    append(out, describeResource(block));
  } else if (type == "resource_link") {
    append(out, "[resource " + block->optValue<std::string>("uri", "") + "]");
  } else {
    append(out, "[" + (type.empty() ? std::string("unknown") : type) + " content]");
  }
}

Joined joinContent(const Poco::JSON::Array::Ptr& content) {
  Joined out;
  if (content.isNull()) return out;
  for (std::size_t i = 0; i < content->size(); ++i) {
    auto block = content->getObject(static_cast<unsigned>(i));
    if (!block.isNull()) addBlock(out, block);
  }
  return out;
}

}  // namespace

tools::ToolResult toToolResult(const Poco::JSON::Object::Ptr& result) {
  if (result.isNull()) return {false, "the server's tools/call result was not an object"};
  Joined joined = joinContent(result->getArray("content"));
  tools::ToolResult out(!result->optValue<bool>("isError", false), std::move(joined.text),
                        std::move(joined.images));
  if (!joined.has_text && result->has("structuredContent")) {
    out.text = jsonrpc::stringify(result->get("structuredContent"));
  }
  return out;
}

}  // namespace gantry::mcp
