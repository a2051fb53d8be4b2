#include "chat/reply_media.h"

#include <regex>

namespace gantry::chat {
namespace {

std::string trim(const std::string& s) {
  auto first = s.find_first_not_of(" \t\r\n");
  if (first == std::string::npos) return {};
  auto last = s.find_last_not_of(" \t\r\n");
  return s.substr(first, last - first + 1);
}

}  // namespace

std::optional<ReplyImage> findImage(const std::string& reply) {
  static const std::regex kMarkdown(R"(!\[[^\]]*\]\((https?://[^)\s]+)\))");
  static const std::regex kBare(R"((https?://\S+\.(?:png|jpe?g|gif|webp)(?:\?\S*)?))",
                                std::regex::icase);
  std::smatch match;
  if (std::regex_search(reply, match, kMarkdown) || std::regex_search(reply, match, kBare)) {
    std::string caption = match.prefix().str() + match.suffix().str();
    return ReplyImage{match[1].str(), trim(caption)};
  }
  return std::nullopt;
}

}  // namespace gantry::chat
