#pragma once
/// Late delivery: a reply the channel refused while the instance runs (its sends failing for
/// a while, the receive side working or not) stays in the outbox and is sent again once sends
/// may work, instead of waiting for the next start.

#include <cstdint>
#include <vector>

#include "gantry/channel.h"
#include "store/outbox_repo.h"

namespace gantry::chat {

/// Sends the outbox rows among *ids (outbox ids whose delivery failed), oldest first, each
/// marked as possibly reaching the owner twice; stops at the first failure a retry may help
/// (the channel still down). Rows delivered, or refused for good (recorded as failed, never
/// tried again), leave *ids. Returns false when it stopped at a failure.
/// Called on the chat's worker thread, so nothing else sends for the chat meanwhile.
bool deliverLate(store::OutboxRepo& outbox, Channel& channel, std::vector<int64_t>* ids);

}  // namespace gantry::chat
