#pragma once
/// Bounded context (DESIGN 4.2): which messages of the record go into the prompt. Pure
/// functions over values; no I/O, no locks.

#include <cstddef>
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "gantry/message.h"

namespace gantry::session {

/// Tool results kept whole when the history is trimmed; older ones collapse (DESIGN 4.2).
inline constexpr int kKeptToolResults = 4;

/// Estimated tokens of one image part (an estimate, like every token count here).
inline constexpr int kImageTokenEstimate = 800;

/// Estimated tokens of a message: chars/4 over its content, tool-call names and arguments,
/// tool name and call id, plus kImageTokenEstimate per image. An estimate, not a tokenizer.
int estimateTokens(const ChatMessage& message);
/// The sum of estimateTokens over messages.
int estimateTokens(const std::vector<ChatMessage>& messages);

/// Limits on the history placed in the prompt.
struct Bounds {
  int max_messages = 200;   ///< HISTORY_MAX_MESSAGES: a hard cap
  int max_tokens = 128000;  ///< HISTORY_MAX_TOKENS, estimated (chars/4)
  int protected_turns = 2;  ///< the last N user turns are kept even past max_tokens
  /// Once a cap is exceeded, turns are dropped until the history is within this percentage
  /// of both caps. Every trim rewrites the prompt a local model has cached, so it trims far
  /// enough that the next one is many turns away. 100 trims just to the caps.
  int low_water_percent = 25;
};

/// The history split into what the prompt keeps and what was dropped (oldest first both).
struct BoundResult {
  std::vector<ChatMessage> kept;
  std::vector<ChatMessage> dropped;
  int kept_tokens = 0;  ///< estimateTokens(kept)
};

/// True when messages messages of tokens estimated tokens are past max_messages or max_tokens.
bool pastBounds(std::size_t messages, long tokens, const Bounds& bounds);
/// pastBounds of history.
bool pastBounds(const std::vector<ChatMessage>& history, const Bounds& bounds);

/// True when history is past the midpoint between the low-water mark and the caps: a trim
/// then has enough to take away that the next one is many turns off.
bool pastFoldMark(const std::vector<ChatMessage>& history, const Bounds& bounds);

/// Trims history (the record in order, persona and current message not included):
/// - whole turns (a user message and everything up to the next user message) are dropped
///   oldest first until the history is within low_water_percent of both caps, except the
///   last protected_turns turns;
/// - if the protected turns alone still exceed max_messages (the hard cap), their oldest
///   blocks are dropped too, where a block is a user message, a plain assistant message, or
///   an assistant tool-call message together with its tool results — a pair is never split;
/// - the kept history never starts with a tool message (orphaned results are dropped).
/// history is taken by value: a caller done with it moves it in, and nothing is copied.
BoundResult trimHistory(std::vector<ChatMessage> history, const Bounds& bounds);

/// trimHistory when history is pastBounds; else all of it is kept but orphaned results at
/// its start.
BoundResult boundHistory(std::vector<ChatMessage> history, const Bounds& bounds);

/// The id of the newest tool result that collapses when every result but the last keep of
/// history collapses (ids[i] is the id of history[i]); 0 when none does.
int64_t collapseMark(const std::vector<ChatMessage>& history, const std::vector<int64_t>& ids,
                     int keep = kKeptToolResults);

/// Replaces the content of every tool message of history whose id is at most mark with
/// `[tool NAME: N chars, collapsed]` (N counts UTF-8 characters of the original result) when
/// that is shorter, and drops their images. NAME is the message's name, else the name of the
/// tool call it answers. A result no longer than its marker, or already collapsed, keeps its
/// text. For the prompt only; the record keeps the full text.
void collapseThrough(std::vector<ChatMessage>& history, const std::vector<int64_t>& ids,
                     int64_t mark);

}  // namespace gantry::session
