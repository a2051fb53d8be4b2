#pragma once
/// The events a chat's worker takes in order, one at a time: what the owner sent, a command
/// that takes its turn, a scheduled run, a continuation, a session reset, a redelivery.
/// Pure values and queue helpers, without threads or I/O.

#include <cstdint>
#include <deque>
#include <future>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

#include "gantry/message.h"
#include "gantry/status.h"

namespace gantry::chat {

/// One or more of the owner's messages, joined into one user message.
struct Bubbles {
  InboundMessage message;
  std::vector<int64_t> inbox_ids;  ///< the inbox rows its turn marks handled (none re-joined)
  int count = 1;                   ///< how many messages it joins
};

/// A slash command on ordered input: answered in its place, after the turns before it.
struct Command {
  InboundMessage message;
};

/// A turn not started by the owner: a cron prompt, or the continuation of a parked approval
/// (approval_id set). done receives the reply or the error.
struct Scheduled {
  std::string prompt;
  std::string approval_id;
  std::promise<Result<std::string>> done;
};

/// Continue the turn a crash left open.
struct Resume {};

/// /new on a chat channel: clear the session once the cancelled turn has ended.
struct Reset {
  int dropped = 0;  ///< waiting messages /new dropped, told with the reset
};

/// Send again the replies the channel refused.
struct Redeliver {};

using ChatEvent = std::variant<Bubbles, Command, Scheduled, Resume, Reset, Redeliver>;

/// True for the events that run a model turn (a /cancel can halt them).
bool isTurn(const ChatEvent& event);

/// Takes the bubbles at the front of queue (it must start with Bubbles) and joins them into
/// one message: texts on separate lines, images kept, in order. Stops at the first other
/// event, which keeps its place.
Bubbles takeJoined(std::deque<ChatEvent>& queue);

/// Removes every Bubbles event from queue, returns them in order; the others keep their order.
std::vector<Bubbles> takeAllBubbles(std::deque<ChatEvent>& queue);

/// "1 waiting message was dropped." / "N waiting messages were dropped." ("" for 0).
std::string droppedNotice(int messages);

/// The command word of a message ("/perf" for "  /perf@bot now"), or "" when the text does
/// not start with a slash (leading spaces allowed).
std::string commandWord(const std::string& text);
/// True for a word shaped like a chat command: '/', a letter, then letters, digits or '_'
/// (32 at most, as Telegram's commands), such as "/bogus"; not "/usr/bin" or "/".
bool looksLikeCommand(std::string_view word);

}  // namespace gantry::chat
