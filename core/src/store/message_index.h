#pragma once
/// Brings the messages' search index (messages_fts, for `gantry search`) up to date with the
/// messages recorded since, while the chats are idle: off the reply's path, and the messages
/// of a turn in one transaction instead of each in its own.

#include "store/store.h"

namespace gantry::store {

class MessageIndex {
 public:
  explicit MessageIndex(Store& store) : store_(store) {}

  /// Indexes up to kMessagesPerStep of the messages recorded since the last step, in one
  /// transaction. True when more may be left.
  Result<bool> step();
  /// Steps until every message recorded so far is indexed.
  Status catchUp();

  /// A message arriving waits for one step at most.
  static constexpr int64_t kMessagesPerStep = 256;

 private:
  Store& store_;
};

}  // namespace gantry::store
