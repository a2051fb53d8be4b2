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
/// The fixed sentences that frame the `[memory]` block as recalled notes the persona outranks
/// (DESIGN 3.1). Part of the stable prefix when memory is hydrated.
extern const char* const kMemoryFraming;

/// The system message: persona, framing (the memory framing when memory_framing), and the
/// tool servers' listing and the block of summary when they are not empty.
ChatMessage systemMessage(const std::string& persona, const std::string& listing,
                          const std::string& summary, bool memory_framing = false);

}  // namespace gantry::agent
