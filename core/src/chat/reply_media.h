#pragma once
/// Finding an image in a reply, so it goes out as a photo with the rest as caption. Pure.

#include <optional>
#include <string>

namespace gantry::chat {

struct ReplyImage {
  std::string url;      ///< http(s) URL of the image
  std::string caption;  ///< the reply without the image reference, trimmed
};

/// A markdown image `![alt](https://…)`, or else a bare http(s) URL ending in an image
/// extension. nullopt when the reply has neither.
std::optional<ReplyImage> findImage(const std::string& reply);

}  // namespace gantry::chat
