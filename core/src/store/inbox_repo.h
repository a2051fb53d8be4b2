#pragma once
/// The inbox: every message a channel hands over is written here on receipt and marked
/// handled once its turn has recorded it, so a crash in between loses nothing.

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "gantry/message.h"
#include "store/store.h"

namespace gantry::store {

class InboxRepo {
 public:
  explicit InboxRepo(Store& store) : store_(store) {}
  /// Writes a received message; returns its inbox id.
  Result<int64_t> add(const InboundMessage& message);
  /// Whether this platform message (same chat, same non-empty message id) was received
  /// before: a channel hands an update over again when a crash came before it confirmed it.
  Result<bool> seen(const InboundMessage& message);
  /// Marks messages handled (their images are dropped from the inbox then).
  Status markHandled(const std::vector<int64_t>& ids);
  /// Messages received but never handled, oldest first.
  Result<std::vector<std::pair<int64_t, InboundMessage>>> pending();

 private:
  Store& store_;
};

}  // namespace gantry::store
