#pragma once
/// The stdio channel's line formats (DESIGN 5.4), pure: text lines, or JSON lines in and
/// out — {"text": …} in; {"type":"reply"|"tool"|"error", …} out.

#include <optional>
#include <string>
#include <string_view>

#include "gantry/channel.h"

namespace gantry::stdio {

/// Parses one jsonl input line; nullopt with *err set when it is not {"text": "<string>"}.
std::optional<std::string> parseJsonlInput(std::string_view line, std::string* err);

std::string jsonlReply(std::string_view text);
std::string jsonlEvent(const TurnEvent& event);

}  // namespace gantry::stdio
