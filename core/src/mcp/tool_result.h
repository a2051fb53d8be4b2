#pragma once
/// Mapping of an MCP tools/call result onto the ToolResult the agent loop feeds back. Pure.

#include <Poco/JSON/Object.h>

#include "tools/tool_source.h"

namespace gantry::mcp {

/// Text blocks are joined with newlines; images and audio are summarised as
/// `[image image/png, 1234 bytes]`; embedded resources give their text (or a summary) and
/// resource links `[resource <uri>]`; structuredContent is used when there is no text;
/// isError=true gives ok=false. A null result is an error.
tools::ToolResult toToolResult(const Poco::JSON::Object::Ptr& result);

}  // namespace gantry::mcp
