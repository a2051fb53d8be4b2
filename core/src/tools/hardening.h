#pragma once
/// Helpers the agent loop uses to keep local models on track (DESIGN 4.1). Pure.

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "gantry/message.h"

namespace gantry::tools {

/// Recognises a reply that is only a tool call written as text: a JSON object with "name"
/// and "arguments" (or "parameters"; an object, or a string holding one), optionally inside
/// a ``` / ```json fence or <tool_call>…</tool_call> tags, surrounding whitespace allowed.
/// Returns the call (id empty, arguments as compact JSON) or nullopt for ordinary text.
std::optional<ToolCall> parsePrintedCall(std::string_view text);

/// True when text is a JSON object (tool arguments must be one).
bool validJsonObject(std::string_view text);

}  // namespace gantry::tools
