#include "chat/restart_recovery.h"

#include "gantry/text/split.h"
#include "log/log.h"
#include "session/context_tail.h"

namespace gantry::chat {
namespace {

constexpr std::size_t kQuoteChars = 80;
// In front of a reply whose send a crash cut short: the platform may or may not have it.
constexpr std::string_view kRepeatNote =
    "(Sent again after a restart: this may have reached you already.)\n\n";

}  // namespace

std::vector<store::OpenTurn> settleOpenTurns(store::TurnRepo& turns, bool replay) {
  if (auto waiting = turns.closeWaitingOnApprovals(); waiting.isOk() && waiting.value() > 0) {
    log::info("turns_left_to_their_approvals", {{"count", std::to_string(waiting.value())}});
  }
  auto open = turns.openTurns();
  if (!open.isOk()) {
    log::error("open_turns_read_failed", {{"error", open.status().message()}});
    return {};
  }
  std::vector<store::OpenTurn> resume;
  for (auto& turn : open.value()) {
    if (!replay) {
      turns.close(turn.session_id);
    } else if (turn.resumed) {
      // Continued once and cut short again: the turn itself may be what stops the process,
      // so it is not tried a third time.
      log::warn("turn_interrupted_twice", {{"chat", turn.chat_id}});
      turns.closeWithNotice(
          turn.session_id, turn.chat_id,
          interruptedTwiceNotice(std::string(session::userText(turn.user_message))));
    } else {
      resume.push_back(std::move(turn));
    }
  }
  return resume;
}

void deliverPending(store::OutboxRepo& outbox, Channel& channel, bool replay) {
  auto pending = outbox.pending();
  if (!pending.isOk()) {
    log::error("outbox_read_failed", {{"error", pending.status().message()}});
    return;
  }
  for (const auto& item : pending.value()) {
    if (!replay) {
      outbox.markDone(item.id, store::Delivery::kDropped);
      continue;
    }
    outbox.markSending(item.id);
    auto sent = channel.send(item.chat_id,
                             item.attempted ? std::string(kRepeatNote) + item.text : item.text);
    outbox.markDone(item.id, sent.isOk() ? store::Delivery::kDelivered : store::Delivery::kFailed);
    if (sent.isOk()) {
      log::warn("outbox_delivered_after_restart", {{"chat", item.chat_id}});
    } else {
      log::error("outbox_delivery_failed",
                 {{"chat", item.chat_id}, {"error", sent.status().message()}});
    }
  }
}

std::string interruptedTwiceNotice(const std::string& user_text) {
  std::string quote = user_text.substr(0, text::utf8Prefix(user_text, kQuoteChars));
  if (quote.size() < user_text.size()) quote += "…";
  return "I was interrupted twice while answering \"" + quote +
         "\", so I stopped rather than try a third time. Please send it again if it still "
         "matters.";
}

}  // namespace gantry::chat
