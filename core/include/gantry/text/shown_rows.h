#pragma once
/// ShownRows: the memory rows a run of user messages has shown in their `[memory]` blocks
/// (DESIGN 4 step 2: a row the history still shows is not sent again), kept by hash. The store
/// keeps one beside each cached history and adds only the messages read since, so a turn
/// looks up its few hydrated rows instead of reading every earlier message's block again
/// (bench_host under callgrind: 0.22M of a turn's 4.12M instructions). Two rows with one
/// 64-bit hash would hide the second: left to chance, about 1e-14 a turn with 3,000 rows
/// shown. Header-only, pure.

#include <algorithm>
#include <cstddef>
#include <functional>
#include <span>
#include <string_view>
#include <vector>

#include "gantry/message.h"
#include "gantry/text/context_blocks.h"

namespace gantry::text {

class ShownRows {
 public:
  /// Adds the rows of the `[memory]` block that sent (a user message as sent) begins with.
  void add(std::string_view sent) {
    forEachMemoryRow(sent, [&](std::string_view row) { hashes_.push_back(hash(row)); });
  }

  /// Sorts what was added since the last call in with the rest: after a run of add()s, so
  /// that contains() searches instead of scanning them.
  void settle() {
    const auto sorted = static_cast<std::ptrdiff_t>(sorted_);
    std::sort(hashes_.begin() + sorted, hashes_.end());
    std::inplace_merge(hashes_.begin(), hashes_.begin() + sorted, hashes_.end());
    sorted_ = hashes_.size();
  }

  /// row (one line, as a block lists it) is among the rows added.
  bool contains(std::string_view row) const {
    const std::size_t wanted = hash(row);
    const auto sorted = hashes_.begin() + static_cast<std::ptrdiff_t>(sorted_);
    return std::binary_search(hashes_.begin(), sorted, wanted) ||
           std::find(sorted, hashes_.end(), wanted) != hashes_.end();
  }

 private:
  static std::size_t hash(std::string_view row) { return std::hash<std::string_view>{}(row); }

  std::vector<std::size_t> hashes_;  ///< a row shown twice is in twice
  std::size_t sorted_ = 0;           ///< hashes_ is sorted up to here
};

/// The rows the user messages among messages show, settled.
inline ShownRows shownByUserMessages(std::span<const ChatMessage> messages) {
  ShownRows shown;
  for (const auto& message : messages) {
    if (message.role == Role::kUser) shown.add(message.content);
  }
  shown.settle();
  return shown;
}

}  // namespace gantry::text
