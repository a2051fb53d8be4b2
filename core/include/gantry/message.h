#pragma once
/// Value types that cross the module boundary: chat messages, tool calls, images.

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

namespace gantry {

/// An image for vision: either base64 data with its MIME type, or a URL.
struct Image {
  std::string mime_type;    ///< e.g. "image/jpeg"; empty when url is set
  std::string data_base64;  ///< raw bytes, base64-encoded
  std::string url;          ///< an http(s) or data: URL instead of data
};

/// One tool call requested by the model.
struct ToolCall {
  std::string id;                 ///< provider's call id (generated when the model gave none)
  std::string name;               ///< tool name as the model wrote it
  std::string arguments;          ///< raw JSON text of the arguments, possibly invalid
  std::string thought_signature;  ///< Gemini extra_content.google.thought_signature, echoed back
};

enum class Role { kSystem, kUser, kAssistant, kTool };

/// One message of the prompt or the record.
struct ChatMessage {
  Role role = Role::kUser;
  std::string content;
  std::vector<Image> images;         ///< user messages and tool results
  std::vector<ToolCall> tool_calls;  ///< assistant messages only
  std::string tool_call_id;          ///< tool messages: the call this answers
  std::string name;                  ///< tool messages: the tool's name
  std::string reasoning;             ///< assistant: reasoning kept out of the visible reply
};

/// A tool published to the model. parameters_json is a JSON Schema object, serialized.
struct ToolSchema {
  std::string name;
  std::string description;
  std::string parameters_json;
};

/// Tool schemas that never change once made, never null. Whoever hands one out hands out the
/// same list while its tools stay the same, so "unchanged" is told by the pointer alone (the
/// holder keeps it alive, so the address cannot be reused meanwhile).
using ToolList = std::shared_ptr<const std::vector<ToolSchema>>;

inline ToolList makeToolList(std::vector<ToolSchema> schemas = {}) {
  return std::make_shared<const std::vector<ToolSchema>>(std::move(schemas));
}

/// A message received by a channel from an allowlisted sender.
struct InboundMessage {
  std::string chat_id;
  std::string sender_id;
  std::string sender_name;
  std::string text;
  std::vector<Image> images;
  std::string message_id;
};

inline const char* roleName(Role role) {
  switch (role) {
    case Role::kSystem: return "system";
    case Role::kUser: return "user";
    case Role::kAssistant: return "assistant";
    case Role::kTool: return "tool";
  }
  return "user";
}

}  // namespace gantry
