#include "session/context_tail.h"

namespace gantry::session {
namespace {

constexpr std::string_view kMemoryHead = "[memory]\n";
constexpr std::string_view kNowHead = "[now] ";

bool startsWith(std::string_view text, std::string_view head) {
  return text.substr(0, head.size()) == head;
}

// The length of the leading block that starts with head (through its blank line), or 0.
// A block's lines never hold a blank line: memory rows and the time are single lines.
std::size_t leadingBlock(std::string_view sent, std::string_view head) {
  if (!startsWith(sent, head)) return 0;
  auto end = sent.find("\n\n");
  return end == std::string_view::npos ? 0 : end + 2;
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

std::string_view userText(std::string_view sent) {
  // In the order withContext writes them, each at most once, so words of the user's that
  // happen to look like a block are kept.
  sent.remove_prefix(leadingBlock(sent, kMemoryHead));
  sent.remove_prefix(leadingBlock(sent, kNowHead));
  return sent;
}

std::string_view memoryBlockOf(std::string_view sent) {
  std::size_t block = leadingBlock(sent, kMemoryHead);
  return block ? sent.substr(0, block - 1) : std::string_view();
}

}  // namespace gantry::session
