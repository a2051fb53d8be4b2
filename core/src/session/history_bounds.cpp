#include "session/history_bounds.h"

#include <algorithm>
#include <iterator>
#include <map>
#include <string>
#include <string_view>

namespace gantry::session {
namespace {

// Indices where blocks start: a user message, a plain assistant message, an assistant
// tool-call message with the tool results that follow it, or a run of orphaned tool results.
std::vector<std::size_t> blockStarts(const std::vector<ChatMessage>& history) {
  std::vector<std::size_t> starts;
  std::size_t i = 0;
  while (i < history.size()) {
    starts.push_back(i);
    const ChatMessage& head = history[i++];
    bool takes_results =
        head.role == Role::kTool || (head.role == Role::kAssistant && !head.tool_calls.empty());
    while (takes_results && i < history.size() && history[i].role == Role::kTool) ++i;
  }
  return starts;
}

// Indices where turns start: the first message, and every user message after it.
std::vector<std::size_t> turnStarts(const std::vector<ChatMessage>& history) {
  std::vector<std::size_t> starts;
  for (std::size_t i = 0; i < history.size(); ++i) {
    if (i == 0 || history[i].role == Role::kUser) starts.push_back(i);
  }
  return starts;
}

// suffix[i] = estimated tokens of history[i..end).
std::vector<long> suffixTokens(const std::vector<ChatMessage>& history) {
  std::vector<long> suffix(history.size() + 1, 0);
  for (std::size_t i = history.size(); i-- > 0;)
    suffix[i] = suffix[i + 1] + estimateTokens(history[i]);
  return suffix;
}

bool fits(std::size_t kept_messages, long kept_tokens, long max_messages, long max_tokens) {
  return static_cast<long>(kept_messages) <= max_messages && kept_tokens <= max_tokens;
}

// The first kept index after dropping whole unprotected turns, oldest first, down to the
// low-water mark.
std::size_t cutByTurns(const std::vector<ChatMessage>& history, const Bounds& bounds) {
  auto suffix = suffixTokens(history);
  long percent = std::clamp(bounds.low_water_percent, 1, 100);
  long low_messages = bounds.max_messages * percent / 100;
  long low_tokens = static_cast<long>(bounds.max_tokens) * percent / 100;
  auto turns = turnStarts(history);
  std::size_t protect = std::min<std::size_t>(std::max(bounds.protected_turns, 0), turns.size());
  std::size_t last_droppable = turns.size() - protect;
  for (std::size_t k = 0; k < last_droppable; ++k) {
    std::size_t cut = turns[k];
    if (fits(history.size() - cut, suffix[cut], low_messages, low_tokens)) return cut;
  }
  return last_droppable < turns.size() ? turns[last_droppable] : history.size();
}

// Enforces the hard message cap by dropping whole blocks from the front.
std::size_t cutByBlocks(const std::vector<ChatMessage>& history, std::size_t cut,
                        int max_messages) {
  std::size_t cap = static_cast<std::size_t>(std::max(max_messages, 0));
  if (history.size() - cut <= cap) return cut;
  for (std::size_t start : blockStarts(history)) {
    if (start >= cut && history.size() - start <= cap) return start;
  }
  return history.size();
}

std::size_t utf8Length(const std::string& text) {
  return static_cast<std::size_t>(std::count_if(text.begin(), text.end(), [](char c) {
    return (static_cast<unsigned char>(c) & 0xC0) != 0x80;
  }));
}

constexpr std::string_view kCollapsedEnd = " chars, collapsed]";

bool isCollapsed(const std::string& content) {
  return content.rfind("[tool ", 0) == 0 && content.size() > kCollapsedEnd.size() &&
         content.compare(content.size() - kCollapsedEnd.size(), kCollapsedEnd.size(),
                         kCollapsedEnd) == 0;
}

std::map<std::string, std::string> callNames(const std::vector<ChatMessage>& prompt) {
  std::map<std::string, std::string> names;
  for (const auto& message : prompt) {
    for (const auto& call : message.tool_calls) names[call.id] = call.name;
  }
  return names;
}

}  // namespace

int estimateTokens(const ChatMessage& message) {
  std::size_t chars = message.content.size() + message.name.size() + message.tool_call_id.size();
  for (const auto& call : message.tool_calls) chars += call.name.size() + call.arguments.size();
  return static_cast<int>((chars + 3) / 4) +
         static_cast<int>(message.images.size()) * kImageTokenEstimate;
}

int estimateTokens(const std::vector<ChatMessage>& messages) {
  int total = 0;
  for (const auto& message : messages) total += estimateTokens(message);
  return total;
}

bool pastBounds(std::size_t messages, long tokens, const Bounds& bounds) {
  return !fits(messages, tokens, bounds.max_messages, bounds.max_tokens);
}

bool pastBounds(const std::vector<ChatMessage>& history, const Bounds& bounds) {
  return pastBounds(history.size(), estimateTokens(history), bounds);
}

bool pastFoldMark(const std::vector<ChatMessage>& history, const Bounds& bounds) {
  const int percent = (std::clamp(bounds.low_water_percent, 1, 100) + 100) / 2;
  Bounds mark = bounds;
  mark.max_messages = bounds.max_messages * percent / 100;
  mark.max_tokens = static_cast<int>(static_cast<long>(bounds.max_tokens) * percent / 100);
  return pastBounds(history, mark);
}

namespace {

// history split at cut, moved past results whose call was cut off.
BoundResult splitAt(std::vector<ChatMessage> history, std::size_t cut) {
  while (cut < history.size() && history[cut].role == Role::kTool) ++cut;
  BoundResult result;
  auto split = history.begin() + static_cast<std::ptrdiff_t>(cut);
  result.dropped.assign(std::make_move_iterator(history.begin()), std::make_move_iterator(split));
  history.erase(history.begin(), split);
  result.kept = std::move(history);
  result.kept_tokens = estimateTokens(result.kept);
  return result;
}

}  // namespace

BoundResult trimHistory(std::vector<ChatMessage> history, const Bounds& bounds) {
  const std::size_t cut = cutByBlocks(history, cutByTurns(history, bounds), bounds.max_messages);
  return splitAt(std::move(history), cut);
}

BoundResult boundHistory(std::vector<ChatMessage> history, const Bounds& bounds) {
  if (pastBounds(history, bounds)) return trimHistory(std::move(history), bounds);
  return splitAt(std::move(history), 0);
}

int64_t collapseMark(const std::vector<ChatMessage>& history, const std::vector<int64_t>& ids,
                     int keep) {
  int seen = 0;
  for (std::size_t i = std::min(history.size(), ids.size()); i-- > 0;) {
    if (history[i].role == Role::kTool && ++seen > keep) return ids[i];
  }
  return 0;
}

void collapseThrough(std::vector<ChatMessage>& history, const std::vector<int64_t>& ids,
                     int64_t mark) {
  if (mark <= 0) return;
  auto names = callNames(history);
  for (std::size_t i = 0; i < std::min(history.size(), ids.size()) && ids[i] <= mark; ++i) {
    ChatMessage& m = history[i];
    if (m.role != Role::kTool) continue;
    m.images.clear();  // the costliest part of an old result goes whatever its text's length
    if (isCollapsed(m.content)) continue;
    const std::string name = !m.name.empty() ? m.name : names[m.tool_call_id];
    const std::size_t chars = utf8Length(m.content);
    std::string collapsed = "[tool " + (name.empty() ? std::string("?") : name) + ": " +
                            std::to_string(chars) + std::string(kCollapsedEnd);
    if (utf8Length(collapsed) < chars) m.content = std::move(collapsed);  // else its own summary
  }
}

}  // namespace gantry::session
