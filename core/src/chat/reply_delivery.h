#pragma once
/// Putting a finished turn in front of the owner: the reply (streamed bubble, text, or photo
/// with caption) or the note that the turn failed.

#include <string>

#include "agent/agent.h"
#include "chat/reply_stream.h"
#include "gantry/channel.h"

namespace gantry::chat {

/// Shows result on channel through the turn's observer, on the turn's thread. True when the
/// channel took the reply or the failure notice (the caller confirms it in the outbox then);
/// false when it refused it, or the turn was cancelled (nothing to deliver).
bool presentOutcome(Channel& channel, const StreamOptions& stream, const std::string& chat_id,
                    ReplyStream& observer, const agent::TurnResult& result);

}  // namespace gantry::chat
