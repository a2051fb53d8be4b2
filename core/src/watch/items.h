#pragma once
/// The items of a watched tool's result (DESIGN 7): the elements of its top-level JSON array
/// (or of its single array field, or of the array a JSON pointer names), each identified by
/// its `id`, `guid`, `url` or `link` (or the member a JSON pointer names), else by a hash of
/// the element; a result that is not JSON is one item per non-blank line. Pure.

#include <cstddef>
#include <string>
#include <vector>

#include "gantry/status.h"

namespace gantry::watch {

/// At most this many items are taken from one result (the first ones); the rest wait.
constexpr std::size_t kMaxItems = 500;
/// An id longer than this is stored as a hash of itself.
constexpr std::size_t kMaxIdChars = 200;

/// Where the items are: JSON pointers (RFC 6901); "" lets extractItems find them.
struct ItemSpec {
  std::string array_pointer;  ///< the array, from the result's root ("/entries")
  std::string id_pointer;     ///< an item's id, from the item ("/guid")
};

struct Item {
  std::string id;    ///< unique within one result
  std::string text;  ///< the element as compact JSON (a string element: the string), or the line
};

/// The result's items in order, without repeated ids, at most kMaxItems. Errors say what
/// was wrong in words the model (watch_add) or the owner (a failing poll) can act on.
Result<std::vector<Item>> extractItems(const std::string& result, const ItemSpec& spec);

/// An error unless pointer is "" or a JSON pointer ("/a/0/b"); what names the argument.
Status checkPointer(const std::string& pointer, const std::string& what);

/// "sha256:" and the first 32 hex digits of text's SHA-256.
std::string hashId(const std::string& text);

}  // namespace gantry::watch
