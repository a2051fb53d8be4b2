#pragma once
/// Row writers shared by repositories whose steps commit together in one transaction.
/// store/*.cpp only; called with the store lock held. They throw Poco exceptions, which the
/// calling repository turns into a Status.

#include <cstdint>
#include <string>

#include "gantry/message.h"
#include "store/db.h"
#include "store/message_repo.h"
#include "store/prompt_budget_repo.h"

namespace gantry::store {

/// Appends message to the session's history; returns its id.
int64_t insertMessage(Db& db, int64_t session_id, const ChatMessage& message);

/// Queues text for chat_id in the outbox, pending until delivered. message_id is the reply in
/// the record (0 for a notice the record does not hold). Returns the outbox id.
int64_t insertOutbox(Db& db, const std::string& chat_id, int64_t message_id,
                     const std::string& text);

/// Sets the heartbeat's last model call: when it ended, and its outcome (redacted, as in the
/// log).
void writeModelOutcome(Db& db, const std::string& outcome, int64_t at);

/// Replaces the chat's standing prompt parts with budget's.
void writePromptBudget(Db& db, const StoredBudget& budget);

/// Appends the turn's row and one tool_repairs row per repair and, when given, replaces the
/// chat's standing prompt parts with standing's.
void writeTurn(Db& db, const TurnCost& cost, const StoredBudget* standing);

}  // namespace gantry::store
