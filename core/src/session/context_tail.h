#pragma once
/// The volatile tail of a prompt (DESIGN 4 step 2): the `[memory]` hydration block and the
/// `[now]` line, sent in front of the user's words. The user message is recorded exactly as
/// sent, tail included, so the next request repeats it byte for byte and a local model's
/// prompt cache keeps everything up to the new message. Pure.

#include <span>
#include <string>
#include <string_view>

#include "gantry/message.h"

namespace gantry::session {

/// The message as sent: "[memory]\n- …\n" (when memory_block is not empty), "[now] <now>\n"
/// (when now is not empty), each followed by a blank line, then text.
std::string withContext(const std::string& memory_block, const std::string& now,
                        const std::string& text);

/// What the user wrote: sent without the blocks withContext put in front of it.
std::string_view userText(std::string_view sent);

/// block (as hydrated: "[memory]\n" and one row a line) without the rows the `[memory]` blocks
/// of history's user messages show; "" when no row is left.
std::string withoutShownRows(std::string_view block, std::span<const ChatMessage> history);

}  // namespace gantry::session
