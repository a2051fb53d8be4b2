#pragma once
/// Prompt assembly (DESIGN 4 step 2), stable parts first so a local model's prompt cache
/// keeps its prefix: persona + framing → rolling summary → bounded history → the volatile
/// tail (memory block, date/time) joined to the current message. Pure.

#include <string>
#include <vector>

#include "gantry/message.h"

namespace gantry::agent {

struct PromptParts {
  std::string persona;               ///< persona text
  std::string summary;               ///< rolling summary paragraph, may be empty
  std::vector<ChatMessage> history;  ///< bounded history, oldest first, ending with the turn so far
  std::string memory_block;          ///< `[memory]\n- …`, may be empty
  std::string now;                   ///< current local date/time
  std::size_t current_index = 0;     ///< index in history of the current user message
};

/// The fixed sentence that frames tool output as data. Part of the stable prefix.
extern const char* const kToolFraming;

/// Builds the messages to send. The current user message gets the volatile tail prepended
/// in the prompt only; the record keeps what the user wrote.
std::vector<ChatMessage> buildPrompt(const PromptParts& parts);

/// Local date and time, e.g. "2026-11-30 22:40 (Monday), UTC".
std::string localNow();

}  // namespace gantry::agent
