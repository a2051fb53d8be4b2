#include "chat/chat_worker.h"

#include <malloc.h>

#include "agent/prompt.h"
#include "chat/late_delivery.h"
#include "chat/reply_delivery.h"
#include "log/log.h"

namespace gantry::chat {

ChatService::Worker::Worker(ChatService& service, std::string chat_id)
    : s_(service), chat_id_(std::move(chat_id)), thread_([this] { loop(); }) {}

ChatService::Worker::~Worker() {
  {
    std::lock_guard lock(mutex_);
    stop_ = true;
    if (current_) current_->cancel();
  }
  cv_.notify_all();
  thread_.join();
  for (auto& event : queue_) {
    if (auto* job = std::get_if<Scheduled>(&event)) {
      job->done.set_value(ChatService::refusedAtShutdown());
    }
  }
}

void ChatService::Worker::add(std::vector<ChatEvent> events) {
  std::lock_guard lock(mutex_);
  bool bubbles = false;
  for (auto& event : events) {
    bubbles = bubbles || std::holds_alternative<Bubbles>(event);
    queue_.push_back(std::move(event));
  }
  if (bubbles) last_bubble_ = s_.options_.settle_clock->now();
  if (bubbles && s_.joinsBubbles() && phase_ == Phase::kOwnerTurn && current_) {
    current_->cancel();  // the new bubbles join the interrupted one
    settle_ = true;
  }
  cv_.notify_all();
}

std::future<Result<std::string>> ChatService::Worker::addScheduled(std::string prompt,
                                                                   std::string approval_id) {
  Scheduled job{std::move(prompt), std::move(approval_id), {}};
  auto done = job.done.get_future();
  std::vector<ChatEvent> events;
  events.emplace_back(std::move(job));
  add(std::move(events));
  return done;
}

void ChatService::Worker::addRedeliver() {
  std::lock_guard lock(mutex_);
  if (undelivered_.empty()) return;
  for (const auto& event : queue_) {
    if (std::holds_alternative<Redeliver>(event)) return;  // one is enough
  }
  queue_.emplace_back(Redeliver{});
  cv_.notify_all();
}

ChatService::Worker::Dropped ChatService::Worker::cancelAll(bool reset) {
  std::lock_guard lock(mutex_);
  Dropped dropped;
  for (const auto& bubbles : takeAllBubbles(queue_)) {
    dropped.messages += bubbles.count;
    s_.inbox_.markHandled({bubbles.inbox_ids.begin(), bubbles.inbox_ids.end()});
  }
  settle_ = false;
  if (current_) {
    current_->cancel();
    cancelled_by_owner_ = true;
    dropped.turn = true;
  }
  if (reset) queue_.emplace_front(Reset{dropped.messages});
  cv_.notify_all();
  return dropped;
}

bool ChatService::Worker::idle() {
  std::lock_guard lock(mutex_);
  return idleLocked();
}

void ChatService::Worker::cancelCurrent() {
  std::lock_guard lock(mutex_);
  if (current_) current_->cancel();
}

bool ChatService::Worker::idleLocked() const { return phase_ == Phase::kIdle && queue_.empty(); }

void ChatService::Worker::loop() {
  std::unique_lock lock(mutex_);
  while (auto event = next(lock)) {
    lock.unlock();
    std::visit([this](auto& e) { run(e); }, *event);
    lock.lock();
    current_.reset();
    phase_ = Phase::kBusy;
    if (queue_.empty()) {  // still busy: drain() waits for the wind-down
      lock.unlock();
      windDown();
      lock.lock();
    }
    phase_ = Phase::kIdle;
    // Only a worker with nothing left to do can end a wait for all of them (an event queued
    // behind this one would wake the waiter for nothing, once a turn).
    if (idleLocked()) s_.cv_idle_.notify_all();
  }
}

/// Waits for the next event and takes it; nullopt once stopping. Bubbles at the front are
/// joined into one turn where the channel joins them, after the quiet period when a bubble
/// interrupted the last turn.
std::optional<ChatEvent> ChatService::Worker::next(std::unique_lock<std::mutex>& lock) {
  while (true) {
    cv_.wait(lock, [this] { return stop_ || !queue_.empty(); });
    if (stop_) return std::nullopt;
    if (!std::holds_alternative<Bubbles>(queue_.front())) return take(Phase::kBusy);
    if (!s_.joinsBubbles()) return take(Phase::kOwnerTurn);
    if (settle_) {
      waitForQuiet(lock);
      if (stop_) return std::nullopt;
      continue;  // /cancel may have dropped what waited, or queued a reset ahead of it
    }
    phase_ = Phase::kOwnerTurn;
    cancelled_by_owner_ = false;
    current_ = std::make_shared<CancelToken>();
    return takeJoined(queue_);
  }
}

/// Takes the front event alone; a turn gets its cancel token here, under the lock, so a
/// bubble or /cancel arriving from now on reaches it.
ChatEvent ChatService::Worker::take(Phase phase) {
  ChatEvent event = std::move(queue_.front());
  queue_.pop_front();
  phase_ = phase;
  cancelled_by_owner_ = false;
  if (isTurn(event)) current_ = std::make_shared<CancelToken>();
  return event;
}

/// Each bubble (add() notifies cv_) moves the end of the quiet period.
void ChatService::Worker::waitForQuiet(std::unique_lock<std::mutex>& lock) {
  phase_ = Phase::kSettling;
  auto settle = std::chrono::milliseconds(s_.options_.coalesce_settle_ms);
  SettleClock& clock = *s_.options_.settle_clock;
  while (!stop_ && settle_) {
    auto quiet_at = last_bubble_ + settle;
    if (clock.now() >= quiet_at) break;
    clock.waitUntil(cv_, lock, quiet_at);
  }
  settle_ = false;
  phase_ = Phase::kIdle;
}

void ChatService::Worker::run(Bubbles& bubbles) {
  if (refusedByGate(bubbles)) return;
  tellOwner();
  agent::TurnRequest request;
  request.text = bubbles.message.text;
  request.images = bubbles.message.images;
  request.inbox_ids = bubbles.inbox_ids;
  auto result = runTurn(std::move(request));
  if (!result.status.isCancelled()) return;
  std::lock_guard lock(mutex_);
  // An interrupted turn that recorded nothing but the message goes back to the front, to be
  // joined with the new bubbles so the model sees one message; one that ran tools keeps its
  // record, and so does one a shutdown cut short (the next start continues it).
  if (!s_.stopping_ && !cancelled_by_owner_ && !result.progressed && result.user_message_id) {
    s_.messages_.hideMessage(result.user_message_id);
    bubbles.inbox_ids.clear();  // marked handled when the turn recorded it
    queue_.emplace_front(std::move(bubbles));
  }
}

/// The daily cap reached: the owner gets the gate's line and the model nothing.
bool ChatService::Worker::refusedByGate(const Bubbles& bubbles) {
  if (!s_.options_.owner_gate) return false;
  const std::string line = s_.options_.owner_gate();
  if (line.empty()) return false;
  log::info("owner_turn_refused", {{"chat", chat_id_}, {"reason", "daily token cap"}});
  if (Status s = s_.inbox_.markHandled(bubbles.inbox_ids); !s.isOk()) {
    log::warn("inbox_mark_failed", {{"error", s.message()}});
  }
  s_.channel_.send(chat_id_, line);
  return true;
}

/// The note the application has for the owner goes ahead of the turn's reply, once.
void ChatService::Worker::tellOwner() {
  if (!s_.options_.owner_note) return;
  OwnerNote note = s_.options_.owner_note();
  if (note.text.empty()) return;
  if (s_.channel_.send(chat_id_, note.text).isOk() && note.told) note.told();
}

/// On ordered input nothing runs beside the command, so /cancel finds nothing to halt and
/// /new drops nothing.
void ChatService::Worker::run(Command& command) {
  const std::string cmd = commandWord(command.message.text);
  if (cmd == "/new") {
    Reset reset;
    return run(reset);
  }
  if (cmd == "/cancel") {
    s_.channel_.send(chat_id_, "Nothing to cancel.");
    return;
  }
  s_.answer(command.message, cmd);
}

void ChatService::Worker::run(Scheduled& job) {
  agent::TurnRequest request;
  request.text = job.prompt;
  request.approval_id = job.approval_id;
  request.scheduled = job.approval_id.empty();  // a cron job's or a watch's turn
  auto result = runTurn(std::move(request));
  if (result.status.isOk()) {
    job.done.set_value(result.reply);
  } else {
    job.done.set_value(result.status);
  }
}

void ChatService::Worker::run(Resume&) {
  agent::TurnRequest request;
  request.resume = true;
  runTurn(std::move(request));  // not cut short by new bubbles: they wait for it
}

void ChatService::Worker::run(Reset& reset) {
  s_.clearSession(chat_id_);
  std::string text = "New session started. Memory is kept.";
  if (reset.dropped > 0) text += " " + droppedNotice(reset.dropped);
  s_.channel_.send(chat_id_, text);
}

void ChatService::Worker::run(Redeliver&) { redeliver(); }

agent::TurnResult ChatService::Worker::runTurn(agent::TurnRequest request) {
  std::shared_ptr<CancelToken> token;
  {
    std::lock_guard lock(mutex_);
    token = current_;
  }
  const bool scheduled = request.scheduled;
  StreamOptions stream = s_.options_.stream;
  // Nobody waits to watch a scheduled turn: its reply arrives whole, so a [silent] one is
  // never half shown.
  if (scheduled) stream.stream = false;
  stream.spinup_at_once = s_.first_turn_.exchange(false);
  ReplyStream observer(s_.channel_, chat_id_, stream);
  request.chat_id = chat_id_;
  // A turn cut short by a shutdown stays open and is resumed at the next start.
  request.keep_open_if_cancelled = [this] { return s_.stopping_.load(); };
  if (s_.typing_) s_.typing_->start(chat_id_);
  auto result = s_.agent_.run(request, observer, *token);  // never throws
  if (s_.typing_) s_.typing_->stop(chat_id_);
  if (scheduled && result.status.isOk() && agent::isSilentReply(result.reply)) {
    // Recorded like any reply; only the push is left out.
    log::info("scheduled_reply_silent", {{"chat", chat_id_}});
    s_.outbox_.markDone(result.outbox_id, store::Delivery::kDropped);
    return result;
  }
  deliver(observer, result);
  if (!result.status.isOk() && !result.status.isCancelled()) ++s_.failed_turns_;
  return result;
}

/// Delivers the turn's outcome, marked sending in the outbox just before and confirmed
/// after the channel returns: a crash in between sends it at the next start, as a possible
/// repeat (the one way a reply can reach the owner twice).
/// One the channel refused is sent again later (addRedeliver), older ones first.
void ChatService::Worker::deliver(ReplyStream& observer, const agent::TurnResult& result) {
  redeliver();
  s_.outbox_.markSending(result.outbox_id);
  if (!presentOutcome(s_.channel_, s_.options_.stream, chat_id_, observer, result)) {
    if (result.outbox_id) {
      log::warn("reply_not_delivered", {{"chat", chat_id_}, {"note", "sent again later"}});
      std::lock_guard lock(mutex_);
      undelivered_.push_back(result.outbox_id);
    }
    return;
  }
  s_.outbox_.markDone(result.outbox_id, store::Delivery::kDelivered);
}

void ChatService::Worker::redeliver() {
  std::vector<int64_t> ids;
  {
    std::lock_guard lock(mutex_);
    ids.swap(undelivered_);
  }
  deliverLate(s_.outbox_, s_.channel_, &ids);
  std::lock_guard lock(mutex_);
  undelivered_.insert(undelivered_.begin(), ids.begin(), ids.end());
}

/// Going idle, off the reply's path.
void ChatService::Worker::windDown() {
  indexMessages();
  s_.store_.checkpointIfDue();  // store/wal_checkpoints.h
  releaseIdleMemory();
}

/// The messages recorded since are indexed for `gantry search` (store/message_index.h), a
/// step at a time while nothing waits for this chat; during a shutdown too, so that a clean
/// stop leaves them searchable. The first failure is logged once for the service.
void ChatService::Worker::indexMessages() {
  while (nothingWaiting()) {
    auto more = s_.message_index_.step();
    if (!more.isOk() && !s_.message_index_failed_.exchange(true)) {
      log::warn("message_index_failed", {{"error", more.status().message()}});
    }
    if (!more.isOk() || !more.value()) return;
  }
}

bool ChatService::Worker::nothingWaiting() {
  std::lock_guard lock(mutex_);
  return queue_.empty();
}

/// Then the database's cached pages and the turn's freed memory go back to the kernel
/// instead of staying dirty in the heap until the next turn.
void ChatService::Worker::releaseIdleMemory() {
  s_.store_.releaseMemory();
  malloc_trim(0);
}

}  // namespace gantry::chat
