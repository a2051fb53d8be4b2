#include "chat/late_delivery.h"

#include <algorithm>
#include <string_view>

#include "log/log.h"

namespace gantry::chat {
namespace {

// The failed send may have reached the platform before it failed (a reply lost on the way
// back): the owner is told it may be a repeat.
constexpr std::string_view kLateNote =
    "(Sent again: an earlier attempt failed and may have reached you already.)\n\n";

}  // namespace

bool deliverLate(store::OutboxRepo& outbox, Channel& channel, std::vector<int64_t>* ids) {
  if (ids->empty()) return true;
  auto pending = outbox.pending();
  if (!pending.isOk()) {
    log::error("outbox_read_failed", {{"error", pending.status().message()}});
    return false;
  }
  for (const auto& item : pending.value()) {
    auto listed = std::find(ids->begin(), ids->end(), item.id);
    if (listed == ids->end()) continue;  // another chat's, or a turn's still being delivered
    auto sent = channel.send(item.chat_id, std::string(kLateNote) + item.text);
    if (!sent.isOk() && sent.status().retryable()) return false;  // still down: next period
    if (!sent.isOk()) {
      // Refused for good (the platform rejects this message): not tried again.
      log::error("outbox_delivery_failed",
                 {{"chat", item.chat_id}, {"error", sent.status().message()}});
      outbox.markDone(item.id, store::Delivery::kFailed);
      ids->erase(listed);
      continue;
    }
    outbox.markDone(item.id, store::Delivery::kDelivered);
    ids->erase(listed);
    log::info("reply_delivered_late", {{"chat", item.chat_id}});
  }
  // Rows no longer pending (pruned, or done elsewhere) are not looked for again.
  std::erase_if(*ids, [&](int64_t id) {
    return std::none_of(pending->begin(), pending->end(),
                        [&](const store::OutboxItem& item) { return item.id == id; });
  });
  return true;
}

}  // namespace gantry::chat
