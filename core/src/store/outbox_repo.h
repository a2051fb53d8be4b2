#pragma once
/// The outbox: what the record holds for a chat (a reply, a notice) until the channel has
/// delivered it. A row is written in the transaction that records the reply, marked sending
/// just before the channel's send and confirmed after it returns, so a crash anywhere in
/// between leaves it undelivered and the next start sends it. A crash while the send was under
/// way, or before its confirmation was written, cannot tell whether the platform took it: that
/// row is sent again marked as a possible repeat, the one case in which a reply can reach the
/// owner twice.

#include <cstdint>
#include <string>
#include <vector>

#include "store/store.h"

namespace gantry::store {

/// An undelivered row.
struct OutboxItem {
  int64_t id = 0;
  std::string chat_id;
  std::string text;
  bool attempted = false;  ///< a send began and its outcome is unknown
};

/// How a row left the outbox.
enum class Delivery {
  kDelivered,  ///< the channel's send returned ok
  kFailed,     ///< the send failed at the start after a crash, or was refused for good
               ///< when sent again late (it is not tried again)
  kDropped,    ///< never sent: the channel's output does not survive a restart (stdio)
};

class OutboxRepo {
 public:
  explicit OutboxRepo(Store& store) : store_(store) {}
  /// Rows not delivered yet (never sent, or whose send was cut short), oldest first.
  Result<std::vector<OutboxItem>> pending();
  /// Marks an undelivered row as being sent (before the channel's send), at once. A no-op for
  /// id 0.
  Status markSending(int64_t id);
  /// Marks an undelivered row done (its text is dropped; the reply stays in messages). A no-op
  /// for id 0 or a row already done.
  Status markDone(int64_t id, Delivery how);

 private:
  Store& store_;
};

}  // namespace gantry::store
