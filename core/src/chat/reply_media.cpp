#include "chat/reply_media.h"

#include <Poco/String.h>

#include <regex>

#include "gantry/text/trim.h"

namespace gantry::chat {
namespace {

/// Where reply first holds "http://" or "https://" in any case (a bare link's pattern ignores
/// case), or npos. Found from the "://", which a plain find finds fast.
std::size_t firstHttp(const std::string& reply) {
  for (std::size_t colon = reply.find("://"); colon != std::string::npos;
       colon = reply.find("://", colon + 1)) {
    if (colon >= 4 && Poco::icompare(reply, colon - 4, 4, "http") == 0) return colon - 4;
    if (colon >= 5 && Poco::icompare(reply, colon - 5, 5, "https") == 0) return colon - 5;
  }
  return std::string::npos;
}

/// The first match of pattern in reply at or after from, as an image with the rest as caption.
std::optional<ReplyImage> imageFrom(const std::string& reply, std::size_t from,
                                    const std::regex& pattern) {
  if (from == std::string::npos) return std::nullopt;
  std::smatch match;
  if (!std::regex_search(reply.begin() + static_cast<std::ptrdiff_t>(from), reply.end(), match,
                         pattern)) {
    return std::nullopt;
  }
  const std::string caption =
      std::string(reply.cbegin(), match[0].first) + std::string(match[0].second, reply.cend());
  return ReplyImage{match[1].str(), std::string(text::trim(caption))};
}

}  // namespace

// std::regex tries a match at every position, slow on a long reply without a link
// (bench/README.md, BENCH_REPLY_CHARS), so each search starts where its first match would have to:
// a markdown image at the first "![", a bare link at the first "http://" or "https://".
std::optional<ReplyImage> findImage(const std::string& reply) {
  static const std::regex kMarkdown(R"(!\[[^\]]*\]\((https?://[^)\s]+)\))");
  static const std::regex kBare(R"((https?://\S+\.(?:png|jpe?g|gif|webp)(?:\?\S*)?))",
                                std::regex::icase);
  if (auto image = imageFrom(reply, reply.find("!["), kMarkdown)) return image;
  return imageFrom(reply, firstHttp(reply), kBare);
}

}  // namespace gantry::chat
