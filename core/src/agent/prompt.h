#pragma once
/// Prompt assembly (DESIGN 4 step 2), stable parts first so a local model's prompt cache
/// keeps its prefix: persona + framing → rolling summary → bounded history. The volatile
/// tail (memory block, date/time) is already part of the current user message, which is
/// recorded as sent (session/context_tail.h).

#include <string>
#include <vector>

#include "gantry/message.h"

namespace gantry::agent {

/// The fixed sentence that frames tool output as data. Part of the stable prefix.
extern const char* const kToolFraming;

/// The system message: persona, framing, and the tool servers' listing and the block of
/// summary when they are not empty.
ChatMessage systemMessage(const std::string& persona, const std::string& listing,
                          const std::string& summary);

/// The messages to send: the system message, then history (bounded, oldest first, ending with
/// the turn so far) as it is. The history's messages are moved in for as long as the prompt
/// lives and moved back when it goes, instead of copied: copying a 200-message history was
/// 64K instructions a model call in bench_host, and its allocations about as many again.
/// history is not to be used meanwhile.
class Prompt {
 public:
  Prompt(ChatMessage system, std::vector<ChatMessage>& history);
  ~Prompt();
  Prompt(const Prompt&) = delete;
  Prompt& operator=(const Prompt&) = delete;

  const std::vector<ChatMessage>& messages() const { return messages_; }

 private:
  std::vector<ChatMessage>& history_;
  std::vector<ChatMessage> messages_;
};

}  // namespace gantry::agent
