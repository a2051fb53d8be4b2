#include "chat/reply_media.h"

#include <regex>

#include "gantry/text/trim.h"

namespace gantry::chat {

std::optional<ReplyImage> findImage(const std::string& reply) {
  static const std::regex kMarkdown(R"(!\[[^\]]*\]\((https?://[^)\s]+)\))");
  static const std::regex kBare(R"((https?://\S+\.(?:png|jpe?g|gif|webp)(?:\?\S*)?))",
                                std::regex::icase);
  std::smatch match;
  if (std::regex_search(reply, match, kMarkdown) || std::regex_search(reply, match, kBare)) {
    std::string caption = match.prefix().str() + match.suffix().str();
    return ReplyImage{match[1].str(), std::string(text::trim(caption))};
  }
  return std::nullopt;
}

}  // namespace gantry::chat
