// Tool-result mapping (mcp/tool_result.h): any JSON object a server returns as a tools/call
// result maps onto a ToolResult without crashing.

#include <Poco/Exception.h>
#include <Poco/JSON/Parser.h>

#include <string>

#include "fuzz_support.h"
#include "mcp/tool_result.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  Poco::JSON::Object::Ptr result;
  try {
    const auto parsed = Poco::JSON::Parser().parse(std::string(gantry::fuzz::asText(data, size)));
    result = parsed.extract<Poco::JSON::Object::Ptr>();
  } catch (const Poco::Exception&) {
    return 0;  // not a JSON object: the client rejects it before mapping
  }
  (void)gantry::mcp::toToolResult(result);
  return 0;
}
