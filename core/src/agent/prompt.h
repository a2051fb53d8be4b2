#pragma once
/// Prompt assembly (DESIGN 4 step 2), stable parts first so a local model's prompt cache
/// keeps its prefix: persona + framing → rolling summary, in the system message, then the
/// bounded history (session::Conversation), sent after it as it lies. The volatile tail
/// (memory block, date/time) is already part of the current user message, which is recorded
/// as sent (session/context_tail.h).

#include <string>
#include <string_view>

#include "gantry/message.h"

namespace gantry::agent {

/// The fixed sentence that frames tool output as data. Part of the stable prefix.
extern const char* const kToolFraming;
/// The fixed sentences that frame the `[memory]` block as recalled notes the persona outranks
/// (DESIGN 3.1). Part of the stable prefix when memory is hydrated.
extern const char* const kMemoryFraming;

/// What a scheduled turn (a cron job's or a watch's) is told last in its system message:
/// that a reply of exactly kSilentReply posts nothing.
extern const char* const kScheduledFraming;
/// The whole reply of a scheduled turn that has nothing to tell the owner.
inline constexpr std::string_view kSilentReply = "[silent]";

/// The framings a system message carries besides the tool framing.
struct SystemFraming {
  bool memory = false;     ///< the [memory] block is recalled notes the persona outranks
  bool scheduled = false;  ///< a scheduled turn: kScheduledFraming, last
};

/// The system message: persona, framing, and the tool servers' listing and the block of
/// summary when they are not empty; a scheduled turn's ends with kScheduledFraming (after
/// everything else, so the cached prefix is the owner's turns').
ChatMessage systemMessage(const std::string& persona, const std::string& listing,
                          const std::string& summary, SystemFraming framing = {});

/// True when reply, trimmed, is exactly kSilentReply.
bool isSilentReply(std::string_view reply);

}  // namespace gantry::agent
