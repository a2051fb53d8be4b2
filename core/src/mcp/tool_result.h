#pragma once
/// Mapping of an MCP tools/call result onto the ToolResult the agent loop feeds back. Pure.

#include <Poco/JSON/Object.h>

#include <cstddef>

#include "tools/tool_source.h"

namespace gantry::mcp {

/// What one result's images may add to the model's request, decoded: past it an image is
/// only described. A screenshot fits; a result never grows a request by more than this.
constexpr std::size_t kToolImageMaxBytes = 1 << 20;

/// Text blocks are joined with newlines; images and audio are summarised as
/// `[image image/png, 1234 bytes]`; embedded resources give their text (or a summary) and
/// resource links `[resource <uri>]`; structuredContent is used when there is no text;
/// isError=true gives ok=false. A null result is an error. PNG, JPEG, GIF and WebP images
/// also go to the model as images, in order, while together within kToolImageMaxBytes; one
/// past it is described as `[image image/png, 1234 bytes, not shown: over the 1 MiB for a
/// result's images]`.
tools::ToolResult toToolResult(const Poco::JSON::Object::Ptr& result);

}  // namespace gantry::mcp
