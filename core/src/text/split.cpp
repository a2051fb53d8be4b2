#include "text/split.h"

#include <algorithm>

namespace gantry::text {
namespace {

constexpr std::string_view kFence = "```";

bool isContinuationByte(char c) { return (static_cast<unsigned char>(c) & 0xC0) == 0x80; }

// Best cut at or before limit: the last paragraph break, else line break, else space, in
// the second half of the window so parts do not become tiny; else a hard UTF-8-safe cut.
std::size_t findCut(std::string_view text, std::size_t limit) {
  std::string_view window = text.substr(0, limit);
  for (std::string_view sep :
       {std::string_view("\n\n"), std::string_view("\n"), std::string_view(" ")}) {
    auto pos = window.rfind(sep);
    if (pos != std::string_view::npos && pos >= limit / 2) return pos + sep.size();
  }
  return utf8Prefix(text, limit);
}

// True when the text leaves a ``` fence open.
bool fenceOpenAfter(std::string_view text) {
  std::size_t count = 0;
  for (auto pos = text.find(kFence); pos != std::string_view::npos;
       pos = text.find(kFence, pos + kFence.size())) {
    ++count;
  }
  return count % 2 == 1;
}

}  // namespace

std::size_t cutPoint(std::string_view text, std::size_t limit) {
  return text.size() <= limit ? text.size() : findCut(text, limit);
}

std::size_t utf8Prefix(std::string_view text, std::size_t limit) {
  if (text.size() <= limit) return text.size();
  // A UTF-8 character has at most three continuation bytes; a longer run is not UTF-8, and
  // backing up through it could reach 0 and leave a caller cutting nothing forever.
  std::size_t cut = limit;
  while (cut > 0 && limit - cut < 3 && isContinuationByte(text[cut])) --cut;
  return cut == 0 || isContinuationByte(text[cut]) ? limit : cut;
}

std::vector<std::string> splitMessage(std::string_view text, std::size_t limit) {
  std::vector<std::string> parts;
  limit = std::max<std::size_t>(limit, 16);
  bool reopen = false;
  while (!text.empty()) {
    std::string prefix = reopen ? std::string(kFence) + "\n" : std::string();
    std::size_t room = limit - prefix.size() - (kFence.size() + 1);  // room to close a fence
    if (prefix.size() + text.size() <= limit) {
      parts.push_back(prefix + std::string(text));
      break;
    }
    std::size_t cut = findCut(text, room);
    std::string part = prefix + std::string(text.substr(0, cut));
    reopen = fenceOpenAfter(part);
    if (reopen) part += (part.back() == '\n' ? "" : "\n") + std::string(kFence);
    while (!part.empty() && (part.back() == '\n' || part.back() == ' ') && !reopen) part.pop_back();
    parts.push_back(std::move(part));
    text.remove_prefix(cut);
    while (!text.empty() && text.front() == '\n') text.remove_prefix(1);
  }
  return parts;
}

}  // namespace gantry::text
