#pragma once
/// Prompt assembly (DESIGN 4 step 2), stable parts first so a local model's prompt cache
/// keeps its prefix: persona + framing → rolling summary → bounded history. The volatile
/// tail (memory block, date/time) is already part of the current user message, which is
/// recorded as sent (session/context_tail.h). Pure.

#include <string>
#include <vector>

#include "gantry/message.h"

namespace gantry::agent {

/// The fixed sentence that frames tool output as data. Part of the stable prefix.
extern const char* const kToolFraming;

/// Builds the messages to send: one system message (persona, framing, the tool servers'
/// listing and the block of summary when they are not empty), then history (bounded, oldest
/// first, ending with the turn so far) as it is.
std::vector<ChatMessage> buildPrompt(const std::string& persona, const std::string& listing,
                                     const std::string& summary,
                                     const std::vector<ChatMessage>& history);

}  // namespace gantry::agent
