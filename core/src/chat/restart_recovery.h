#pragma once
/// The steps of answering at start what a crash left unanswered (ChatService::
/// recoverAfterRestart): turns left open, replies recorded but never delivered.

#include <string>
#include <vector>

#include "gantry/channel.h"
#include "store/outbox_repo.h"
#include "store/turn_repo.h"

namespace gantry::chat {

/// Settles the turns a crash left open and returns those to continue now. A turn that waited
/// for an approval is left to it (its decision continues the turn). With replay, a
/// turn already continued once is closed with a notice instead (queued in the outbox); without
/// replay (the channel's output does not survive a restart) every open turn is closed.
std::vector<store::OpenTurn> settleOpenTurns(store::TurnRepo& turns, bool replay);

/// Sends every undelivered outbox row once, oldest first (one whose earlier send was cut short
/// with a note that it may be a repeat), and records how it went (delivered or failed, never
/// tried again); without replay they are dropped unsent.
void deliverPending(store::OutboxRepo& outbox, Channel& channel, bool replay);

/// What the owner is told about a message whose turn was interrupted twice.
std::string interruptedTwiceNotice(const std::string& user_text);

}  // namespace gantry::chat
