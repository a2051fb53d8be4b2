#include "chat/chat_service.h"

#include <algorithm>
#include <utility>

#include "chat/chat_worker.h"
#include "chat/restart_recovery.h"
#include "chat/slash_commands.h"
#include "gantry/text/trim.h"
#include "log/log.h"

namespace gantry::chat {
namespace {

using Clock = std::chrono::steady_clock;

}  // namespace

ChatService::ChatService(agent::Agent& agent, Channel& channel, store::Store& store,
                         ChatOptions options, CommandTexts texts, approvals::Approvals* approvals)
    : agent_(agent),
      channel_(channel),
      store_(store),
      messages_(store),
      inbox_(store),
      outbox_(store),
      turns_(store),
      message_index_(store),
      options_(std::move(options)),
      texts_(std::move(texts)),
      caps_(channel.caps()),
      approvals_(approvals) {
  if (caps_.shows_typing) typing_.emplace(channel);
  if (!approvals_) return;
  follow_up_ = std::make_unique<ApprovalFollowUp>(
      *approvals_, [this](const store::ApprovalRow& row) { followUp(row); });
  approvals_->setOnChange([follower = follow_up_.get()] { follower->wake(); });
}

ChatService::~ChatService() {
  stopFollowUp();
  std::lock_guard lock(mutex_);
  workers_.clear();
}

void ChatService::stopFollowUp() {
  if (!follow_up_) return;
  approvals_->setOnChange({});
  follow_up_.reset();
}

ChatService::Worker& ChatService::worker(const std::string& chat_id) {
  std::lock_guard lock(mutex_);
  auto& slot = workers_[chat_id];
  if (!slot) slot = std::make_unique<Worker>(*this, chat_id);
  return *slot;
}

void ChatService::onMessage(InboundMessage message) noexcept {
  std::vector<InboundMessage> one;
  one.push_back(std::move(message));
  onMessages(std::move(one));
}

/// Each message is recorded in the inbox before anything else, so a crash before its turn
/// records it loses nothing. The bubbles of a chat are queued together, up to a command
/// that is answered at once (so it comes after the bubbles before it).
void ChatService::onMessages(std::vector<InboundMessage> messages) noexcept {
  try {
    std::map<std::string, std::vector<ChatEvent>> pending;
    for (auto& message : messages) {
      if (stopping_) return;
      log::debug("message_received",
                 {{"chat", message.chat_id}, {"chars", std::to_string(message.text.size())}});
      const std::string cmd = commandOf(message);
      auto& chat_events = pending[message.chat_id];
      if (!cmd.empty() && answeredAtOnce(cmd)) {
        hand(chat_events, message.chat_id);
        answer(message, cmd);
      } else if (!cmd.empty()) {
        chat_events.emplace_back(Command{std::move(message)});
      } else if (!handedOverAgain(message)) {
        chat_events.emplace_back(recorded(std::move(message)));
      }
    }
    for (auto& [chat_id, events] : pending) hand(events, chat_id);
  } catch (const std::exception& e) {
    log::error("message_dropped", {{"error", e.what()}});
  }
}

/// Queues events (emptied) on the chat's worker.
void ChatService::hand(std::vector<ChatEvent>& events, const std::string& chat_id) {
  if (events.empty()) return;
  worker(chat_id).add(std::move(events));
  events.clear();
}

Bubbles ChatService::recorded(InboundMessage message) {
  auto id = inbox_.add(message);
  if (!id.isOk()) log::error("inbox_write_failed", {{"error", id.status().message()}});
  Bubbles bubbles{std::move(message), {}, 1};
  if (id.isOk()) bubbles.inbox_ids.push_back(id.value());
  return bubbles;
}

/// The slash command gantry answers, or "": text that does not begin with a command word
/// goes to the model. A command word gantry does not know is answered too (reply() says so):
/// a mistyped command must not reach the model as if it were a message.
std::string ChatService::commandOf(const InboundMessage& message) const {
  std::string cmd = commandWord(message.text);
  return knownCommand(cmd) || looksLikeCommand(cmd) ? cmd : "";
}

bool ChatService::knownCommand(const std::string& cmd) const {
  const auto& all = slashCommands();
  return cmd == "/start" || texts_.count(cmd) > 0 || options_.commands.count(cmd) > 0 ||
         std::any_of(all.begin(), all.end(),
                     [&](const SlashCommand& c) { return cmd == "/" + std::string(c.name); });
}

/// On ordered input a command takes its turn like any line (Worker::run(Command&)), except
/// the answers a waiting turn needs; on a chat channel every command is answered at once.
bool ChatService::answeredAtOnce(const std::string& cmd) const {
  return !caps_.ordered_input || cmd == "/approve" || cmd == "/deny";
}

void ChatService::answer(const InboundMessage& m, const std::string& cmd) {
  if (cmd == "/cancel") return cancel(m.chat_id);
  if (cmd == "/new") {
    worker(m.chat_id).cancelAll(true);
    return;
  }
  channel_.send(m.chat_id, reply(m, cmd));
}

/// The drop is never silent: the owner is told how many waiting messages went.
void ChatService::cancel(const std::string& chat_id) {
  auto dropped = worker(chat_id).cancelAll(false);
  if (!dropped.turn && dropped.messages == 0) {
    channel_.send(chat_id, "Nothing to cancel.");
    return;
  }
  std::string text = "Cancelled.";
  if (dropped.messages > 0) text += " " + droppedNotice(dropped.messages);
  channel_.send(chat_id, text);
}

std::string ChatService::reply(const InboundMessage& m, const std::string& cmd) {
  if (auto command = options_.commands.find(cmd); command != options_.commands.end()) {
    return command->second(m);
  }
  if (auto report = texts_.find(cmd); report != texts_.end()) {
    return report->second ? report->second(m.chat_id) : "";
  }
  if (cmd == "/approve" || cmd == "/deny") {
    return decide(m, std::string(text::trim(m.text)), cmd == "/approve");
  }
  if (cmd == "/approval") return showApproval(m, std::string(text::trim(m.text)));
  if (cmd == "/start" || cmd == "/help") return helpText();
  if (!knownCommand(cmd)) return cmd + ": unknown command; /help lists them.";
  return cmd + " is not available here.";
}

void ChatService::clearSession(const std::string& chat_id) {
  auto session = messages_.session(chat_id);
  if (session.isOk()) messages_.clearHistory(session.value());
}

bool ChatService::joinsBubbles() const {
  return !caps_.ordered_input && options_.coalesce_settle_ms > 0;
}

/// /approval ID: the whole call this chat's approval is for, every argument in full.
std::string ChatService::showApproval(const InboundMessage& m, const std::string& text) {
  auto space = text.find(' ');
  if (space == std::string::npos || !approvals_) return "Usage: /approval ID";
  const std::string id(text::trim(std::string_view(text).substr(space + 1)));
  auto row = approvals_->show(id);
  if (!row.isOk() || row->chat_id != m.chat_id) return "There is no approval " + id + " here.";
  return "Approval " + row->id + " (" + store::approvalStateName(row->state) + "): " + row->tool +
         " " + approvals::argumentsText(row.value(), 0);
}

/// /approve ID, /deny ID: decided here, ahead of the chat's queue, so a turn waiting for it
/// (or running) cannot hold it up. The waiting turn, or the follow-up, acts on it.
std::string ChatService::decide(const InboundMessage& m, const std::string& text, bool approve) {
  const char* usage = approve ? "Usage: /approve ID" : "Usage: /deny ID";
  auto space = text.find(' ');
  if (space == std::string::npos) return usage;
  std::string id = std::string(text::trim(text.substr(space + 1)));
  if (id.empty() || id.find_first_of(" \n") != std::string::npos) return usage;
  if (!approvals_) return "Approvals are not available here.";
  auto decided =
      approvals_->decide(id, approve, m.sender_id.empty() ? "chat" : m.sender_id, m.chat_id);
  if (!decided.isOk()) return "⚠️ " + decided.status().message() + ".";
  return approve ? "Approved: " + decided->tool + " runs now."
                 : "Denied: " + decided->tool + " will not run.";
}

/// A parked approval settled: a decision continues the turn that asked (the model gets the
/// result or the denial); an expiry is only told, nothing runs.
void ChatService::followUp(const store::ApprovalRow& approval) {
  if (stopping_) return;
  if (approval.state == store::ApprovalState::kExpired) {
    channel_.send(approval.chat_id, "Approval " + approval.id + " for " + approval.tool +
                                        " expired without an answer; it was not run.");
    return;
  }
  log::info("approval_continued", {{"id", approval.id}, {"chat", approval.chat_id}});
  worker(approval.chat_id).addScheduled({}, approval.id);
}

bool ChatService::handedOverAgain(const InboundMessage& message) {
  if (!caps_.replays_inbox) return false;
  auto seen = inbox_.seen(message);
  if (!seen.isOk() || !seen.value()) return false;
  log::warn("inbox_duplicate_dropped",
            {{"chat", message.chat_id}, {"message_id", message.message_id}});
  return true;
}

void ChatService::redeliverRefused() {
  std::lock_guard lock(mutex_);
  for (auto& [chat_id, worker] : workers_) worker->addRedeliver();
}

void ChatService::recoverAfterRestart() {
  bool replay = caps_.replays_inbox;
  auto resume = settleOpenTurns(turns_, replay);
  deliverPending(outbox_, channel_, replay);
  for (const auto& turn : resume) {
    log::warn("turn_resuming", {{"chat", turn.chat_id}});
    std::vector<ChatEvent> resume_turn;
    resume_turn.emplace_back(Resume{});
    worker(turn.chat_id).add(std::move(resume_turn));
  }
  replayInbox(replay);
  if (follow_up_) follow_up_->wake();  // approvals decided while the process was down
}

/// A chat's replayed messages are queued together: a backlog is one turn where bubbles join.
void ChatService::replayInbox(bool replay) {
  auto pending = inbox_.pending();
  if (!pending.isOk()) {
    log::error("inbox_read_failed", {{"error", pending.status().message()}});
    return;
  }
  std::map<std::string, std::vector<ChatEvent>> backlog;
  for (auto& [id, message] : pending.value()) {
    if (!replay) {
      inbox_.markHandled({id});
      continue;
    }
    log::warn("inbox_replayed", {{"chat", message.chat_id}, {"inbox_id", std::to_string(id)}});
    std::string chat_id = message.chat_id;
    backlog[chat_id].emplace_back(Bubbles{std::move(message), {id}, 1});
  }
  for (auto& [chat_id, events] : backlog) hand(events, chat_id);
}

Result<std::string> ChatService::runScheduled(const std::string& chat_id,
                                              const std::string& prompt) {
  if (stopping_) return refusedAtShutdown();
  auto done = worker(chat_id).addScheduled(prompt, {});
  return done.get();
}

bool ChatService::allIdle() {
  for (auto& [id, w] : workers_) {
    if (!w->idle()) return false;
  }
  return true;
}

void ChatService::drain() {
  std::unique_lock lock(mutex_);
  // Workers signal without this lock, so the wait re-checks on a short period too.
  while (!allIdle()) cv_idle_.wait_for(lock, std::chrono::milliseconds(50));
}

void ChatService::shutdown(std::chrono::milliseconds bound) {
  stopping_ = true;
  stopFollowUp();
  std::unique_lock lock(mutex_);
  auto deadline = Clock::now() + bound;
  while (!allIdle() && Clock::now() < deadline) {
    cv_idle_.wait_for(lock, std::chrono::milliseconds(50));
  }
  if (!allIdle()) {
    log::warn("shutdown_cancelling_turns", {});
    for (auto& [id, w] : workers_) w->cancelCurrent();
  }
  workers_.clear();
}

}  // namespace gantry::chat
