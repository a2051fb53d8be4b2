#pragma once
/// Prompt assembly (DESIGN 4 step 2), stable parts first so a local model's prompt cache
/// keeps its prefix: persona + framing → rolling summary, in the system message, then the
/// bounded history (session::Conversation), sent after it as it lies. The volatile tail
/// (memory block, date/time) is already part of the current user message, which is recorded
/// as sent (session/context_tail.h).

#include <string>

#include "gantry/message.h"

namespace gantry::agent {

/// The fixed sentence that frames tool output as data. Part of the stable prefix.
extern const char* const kToolFraming;

/// The system message: persona, framing, and the tool servers' listing and the block of
/// summary when they are not empty.
ChatMessage systemMessage(const std::string& persona, const std::string& listing,
                          const std::string& summary);

}  // namespace gantry::agent
