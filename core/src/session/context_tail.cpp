#include "session/context_tail.h"

#include <algorithm>
#include <vector>

#include "gantry/text/context_blocks.h"

namespace gantry::session {
namespace {

using text::kMemoryHead;
using text::kNowHead;

bool startsWith(std::string_view text, std::string_view head) {
  return text.substr(0, head.size()) == head;
}

// Calls row(line) for each row line of block, the head line left out.
template <class Fn>
void forEachRow(std::string_view block, Fn&& row) {
  if (!startsWith(block, kMemoryHead)) return;
  block.remove_prefix(kMemoryHead.size());
  while (!block.empty()) {
    auto end = block.find('\n');
    auto line = block.substr(0, end);
    if (!line.empty()) row(line);
    block.remove_prefix(end == std::string_view::npos ? block.size() : end + 1);
  }
}

// The rows (one line each, as a block lists them) of the `[memory]` blocks of history's user
// messages, sorted; they point into history.
std::vector<std::string_view> shownRows(std::span<const ChatMessage> history) {
  std::vector<std::string_view> rows;
  for (const auto& message : history) {
    if (message.role != Role::kUser) continue;
    text::forEachMemoryRow(message.content, [&](std::string_view row) { rows.push_back(row); });
  }
  std::sort(rows.begin(), rows.end());
  return rows;
}

}  // namespace

std::string withContext(const std::string& memory_block, const std::string& now,
                        const std::string& text) {
  std::string sent;
  if (!memory_block.empty()) {
    sent += memory_block;
    if (memory_block.back() != '\n') sent += '\n';
    sent += '\n';
  }
  if (!now.empty()) sent += std::string(kNowHead) + now + "\n\n";
  return sent + text;
}

std::string_view userText(std::string_view sent) { return sent.substr(text::contextBytes(sent)); }

std::string withoutShownRows(std::string_view block, std::span<const ChatMessage> history) {
  const std::vector<std::string_view> shown = shownRows(history);
  std::string kept;
  forEachRow(block, [&](std::string_view row) {
    if (std::binary_search(shown.begin(), shown.end(), row)) return;
    kept += row;
    kept += '\n';
  });
  return kept.empty() ? std::string() : std::string(kMemoryHead) + kept;
}

}  // namespace gantry::session
