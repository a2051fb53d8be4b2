#include "chat/chat_events.h"

#include <algorithm>
#include <cctype>

#include "gantry/text/trim.h"

namespace gantry::chat {

bool isTurn(const ChatEvent& event) {
  return std::holds_alternative<Bubbles>(event) || std::holds_alternative<Scheduled>(event) ||
         std::holds_alternative<Resume>(event);
}

Bubbles takeJoined(std::deque<ChatEvent>& queue) {
  Bubbles joined = std::get<Bubbles>(std::move(queue.front()));
  queue.pop_front();
  while (!queue.empty() && std::holds_alternative<Bubbles>(queue.front())) {
    Bubbles next = std::get<Bubbles>(std::move(queue.front()));
    queue.pop_front();
    InboundMessage& into = joined.message;
    if (!into.text.empty() && !next.message.text.empty()) into.text += "\n";
    into.text += next.message.text;
    into.images.insert(into.images.end(), next.message.images.begin(), next.message.images.end());
    joined.inbox_ids.insert(joined.inbox_ids.end(), next.inbox_ids.begin(), next.inbox_ids.end());
    joined.count += next.count;
  }
  return joined;
}

std::vector<Bubbles> takeAllBubbles(std::deque<ChatEvent>& queue) {
  std::vector<Bubbles> taken;
  std::deque<ChatEvent> kept;
  for (auto& event : queue) {
    if (auto* bubbles = std::get_if<Bubbles>(&event)) {
      taken.push_back(std::move(*bubbles));
    } else {
      kept.push_back(std::move(event));
    }
  }
  queue.swap(kept);
  return taken;
}

std::string droppedNotice(int messages) {
  if (messages <= 0) return "";
  if (messages == 1) return "1 waiting message was dropped.";
  return std::to_string(messages) + " waiting messages were dropped.";
}

bool looksLikeCommand(std::string_view word) {
  if (word.size() < 2 || word.size() > 33 || word[0] != '/' ||
      std::isalpha(static_cast<unsigned char>(word[1])) == 0) {
    return false;
  }
  return std::all_of(word.begin() + 1, word.end(), [](char c) {
    return std::isalnum(static_cast<unsigned char>(c)) != 0 || c == '_';
  });
}

std::string commandWord(const std::string& text) {
  const std::string_view line = text::trim(text);
  if (line.empty() || line.front() != '/') return "";
  return std::string(line.substr(0, line.find_first_of(" @\n")));
}

}  // namespace gantry::chat
