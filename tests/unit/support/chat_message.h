#pragma once
// A chat message of one role and text, the way most unit tests need one.

#include <string>
#include <utility>

#include "gantry/message.h"

namespace gantry::testing {

inline ChatMessage message(Role role, std::string content, std::string tool_call_id = {}) {
  ChatMessage m;
  m.role = role;
  m.content = std::move(content);
  m.tool_call_id = std::move(tool_call_id);
  return m;
}

}  // namespace gantry::testing
