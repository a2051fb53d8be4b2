#pragma once
/// The outbox: what the record holds for a chat (a reply, a notice) until the channel has
/// delivered it. A row is written in the transaction that records the reply and confirmed
/// right after the channel's send returns, so a crash in between leaves it pending and the
/// next start sends it. Delivered-but-unconfirmed (a kill between the send returning and the
/// confirmation's commit) is the one case that sends a reply twice.

#include <cstdint>
#include <string>
#include <vector>

#include "store/store.h"

namespace gantry::store {

/// A pending row.
struct OutboxItem {
  int64_t id = 0;
  std::string chat_id;
  std::string text;
};

/// How a row left the outbox.
enum class Delivery {
  kDelivered,  ///< the channel's send returned ok
  kFailed,     ///< the send failed at the start after a crash (it is not tried again)
  kDropped,    ///< never sent: the channel's output does not survive a restart (stdio)
};

class OutboxRepo {
 public:
  explicit OutboxRepo(Store& store) : store_(store) {}
  /// Rows still pending, oldest first.
  Result<std::vector<OutboxItem>> pending();
  /// Marks a pending row done (its text is dropped; the reply stays in messages). A no-op for
  /// id 0 or a row already done.
  Status markDone(int64_t id, Delivery how);

 private:
  Store& store_;
};

}  // namespace gantry::store
