#include "chat/chat_service.h"

#include <malloc.h>

#include <algorithm>

#include "chat/late_delivery.h"
#include "chat/reply_delivery.h"
#include "chat/restart_recovery.h"
#include "chat/slash_commands.h"
#include "gantry/text/trim.h"
#include "log/log.h"

namespace gantry::chat {
namespace {

using Clock = std::chrono::steady_clock;

/// One of the slash commands (the others are answered before this is asked).
bool isReportCommand(const std::string& cmd) {
  const auto& all = slashCommands();
  return std::any_of(all.begin(), all.end(),
                     [&](const SlashCommand& c) { return cmd == "/" + std::string(c.name); });
}

/// A turn not started by a user message: a cron prompt, or the continuation of a parked
/// approval (approval_id set).
struct ScheduledJob {
  std::string prompt;
  std::string approval_id;
  std::promise<Result<std::string>> done;
};

/// Joins bubbles into one user message: texts on separate lines, images kept.
InboundMessage join(std::deque<InboundMessage>& bubbles, const std::string& carried) {
  InboundMessage joined = bubbles.front();
  joined.text = carried;
  for (auto& b : bubbles) {
    if (!joined.text.empty() && !b.text.empty()) joined.text += "\n";
    joined.text += b.text;
    if (&b != &bubbles.front()) {
      joined.images.insert(joined.images.end(), b.images.begin(), b.images.end());
    }
  }
  bubbles.clear();
  return joined;
}

}  // namespace

/// One chat: a thread running one turn at a time. Messages arriving during a turn cancel it
/// and are joined after COALESCE_SETTLE_MS of quiet (unless input is ordered).
class ChatService::Worker {
 public:
  Worker(ChatService& service, std::string chat_id)
      : s_(service), chat_id_(std::move(chat_id)), thread_([this] { loop(); }) {}

  ~Worker() {
    {
      std::lock_guard lock(mutex_);
      stop_ = true;
      if (current_) current_->cancel();
    }
    cv_.notify_all();
    thread_.join();
    // Scheduled turns that never started are answered, so no caller waits forever.
    for (auto& job : scheduled_) job->done.set_value(Status::cancelled("shutting down"));
  }

  /// inbox_id: the message's inbox row, marked handled once a turn has recorded it.
  void addBubble(InboundMessage message, int64_t inbox_id) {
    std::lock_guard lock(mutex_);
    bubbles_.push_back(std::move(message));
    bubble_ids_.push_back(inbox_id);
    last_bubble_ = s_.options_.settle_clock->now();
    if (!ordered() && current_ && current_user_) {
      current_->cancel();  // the new bubble joins the interrupted one
      settle_ = true;
    }
    cv_.notify_all();
  }

  /// Sends again the replies the channel refused earlier (when there are any).
  void addRedeliver() {
    std::lock_guard lock(mutex_);
    if (undelivered_.empty()) return;
    redeliver_ = true;
    cv_.notify_all();
  }

  /// Continues the chat's turn a crash left open, before anything queued after it.
  void addResume() {
    std::lock_guard lock(mutex_);
    resume_ = true;
    cv_.notify_all();
  }

  std::future<Result<std::string>> addScheduled(std::string prompt, std::string approval_id = {}) {
    std::lock_guard lock(mutex_);
    scheduled_.push_back(std::make_unique<ScheduledJob>());
    scheduled_.back()->prompt = std::move(prompt);
    scheduled_.back()->approval_id = std::move(approval_id);
    cv_.notify_all();
    return scheduled_.back()->done.get_future();
  }

  /// /cancel and /new: halt the turn and drop the pending batch. True when anything was.
  bool cancelAll(bool reset) {
    std::lock_guard lock(mutex_);
    bool any = current_ != nullptr || !bubbles_.empty();
    s_.inbox_.markHandled({bubble_ids_.begin(), bubble_ids_.end()});
    bubbles_.clear();
    bubble_ids_.clear();
    carried_.clear();
    settle_ = false;
    if (current_) {
      current_->cancel();
      cancelled_by_user_ = true;
    }
    reset_ = reset_ || reset;
    cv_.notify_all();
    return any;
  }

  bool idle() {
    std::lock_guard lock(mutex_);
    return idleLocked();
  }

  void cancelCurrent() {
    std::lock_guard lock(mutex_);
    if (current_) current_->cancel();
  }

 private:
  bool ordered() const { return s_.caps_.ordered_input || s_.options_.coalesce_settle_ms == 0; }

  void loop() {
    std::unique_lock lock(mutex_);
    while (true) {
      cv_.wait(lock, [this] {
        return stop_ || reset_ || resume_ || redeliver_ || !bubbles_.empty() || !scheduled_.empty();
      });
      if (stop_) return;
      busy_ = true;
      if (redeliver_) {
        redeliver_ = false;
        lock.unlock();
        redeliver();
      } else if (resume_) {
        resume_ = false;
        lock.unlock();
        runResumed();
      } else if (reset_) {
        reset_ = false;
        lock.unlock();
        resetSession();
      } else if (!scheduled_.empty()) {
        auto job = std::move(scheduled_.front());
        scheduled_.pop_front();
        lock.unlock();
        runScheduled(*job);
      } else {
        if (!ordered() && settle_) waitForQuiet(lock);
        if (stop_) return;
        if (bubbles_.empty()) {
          busy_ = false;
          continue;
        }
        std::vector<int64_t> ids;
        std::size_t taken = ordered() ? 1 : bubble_ids_.size();
        for (std::size_t i = 0; i < taken; ++i) ids.push_back(bubble_ids_[i]);
        bubble_ids_.erase(bubble_ids_.begin(), bubble_ids_.begin() + static_cast<long>(taken));
        InboundMessage batch = ordered() ? takeFirst() : join(bubbles_, carried_);
        carried_.clear();
        lock.unlock();
        runUserTurn(batch, ids);
      }
      lock.lock();
      if (bubbles_.empty()) {  // still busy: drain() waits for the wind-down
        lock.unlock();
        s_.flushStore();  // first: a delivered reply's mark waits for it
        indexMessages();
        compactMemoryIndex();
        s_.store_.checkpointIfDue();  // off the reply's path (store/wal_checkpoints.h)
        releaseIdleMemory();
        lock.lock();
      }
      busy_ = false;
      // Only a worker with nothing left to do can end a wait for all of them (a message
      // queued behind this one would wake the waiter for nothing, once a turn).
      if (idleLocked()) s_.cv_idle_.notify_all();
    }
  }

  bool idleLocked() const {
    return !current_ && !busy_ && bubbles_.empty() && scheduled_.empty() && !reset_ && !resume_ &&
           !redeliver_;
  }

  /// Going idle: the messages recorded since are indexed for `gantry search`
  /// (store/message_index.h); during a shutdown too, so that a clean stop leaves them
  /// searchable.
  void indexMessages() {
    stepWhileIdle([this] { return s_.message_index_.step(); }, s_.message_index_failed_,
                  "message_index_failed");
  }

  /// Going idle: the memory index is merged while the service is not stopping
  /// (store/memory_index_compaction.h).
  void compactMemoryIndex() {
    stepWhileIdle([this] { return s_.index_compaction_.step(); }, s_.compaction_failed_,
                  "memory_index_compaction_failed", [this] { return !s_.stopping_; });
  }

  /// Runs step (true: more to do) while nothing waits for this chat and allowed(); its first
  /// failure is logged as event, once for the service.
  template <class Step, class Allowed = bool (*)()>
  void stepWhileIdle(
      Step step, std::atomic<bool>& failed, const char* event,
      Allowed allowed = [] { return true; }) {
    while (allowed() && nothingWaiting()) {
      auto more = step();
      if (!more.isOk() && !failed.exchange(true)) {
        log::warn(event, {{"error", more.status().message()}});
      }
      if (!more.isOk() || !more.value()) return;
    }
  }

  bool nothingWaiting() {
    std::lock_guard lock(mutex_);
    return bubbles_.empty() && scheduled_.empty() && !reset_ && !resume_ && !redeliver_;
  }

  /// Then the database's cached pages and the turn's freed memory go back to the kernel
  /// instead of staying dirty in the heap until the next turn (bench_vs_floor, private memory
  /// of an instance: malloc_trim after 300 turns 2.5 -> 2.4 MiB with one arena, 2.8 -> 2.6
  /// without; releasing the cached pages too, after 1,000 turns, 2.34 -> 2.23 MiB).
  void releaseIdleMemory() {
    s_.store_.releaseMemory();
    malloc_trim(0);
  }

  InboundMessage takeFirst() {
    InboundMessage m = std::move(bubbles_.front());
    bubbles_.pop_front();
    return m;
  }

  /// Each bubble (addBubble notifies cv_) moves the end of the quiet period.
  void waitForQuiet(std::unique_lock<std::mutex>& lock) {
    auto settle = std::chrono::milliseconds(s_.options_.coalesce_settle_ms);
    SettleClock& clock = *s_.options_.settle_clock;
    while (!stop_ && settle_) {
      auto quiet_at = last_bubble_ + settle;
      if (clock.now() >= quiet_at) break;
      clock.waitUntil(cv_, lock, quiet_at);
    }
    settle_ = false;
  }

  void resetSession() {
    auto session = s_.messages_.session(chat_id_);
    if (session.isOk()) s_.messages_.clearHistory(session.value());
    s_.channel_.send(chat_id_, "New session started. Memory is kept.");
  }

  agent::TurnResult runTurn(agent::TurnRequest request, bool user) {
    auto token = std::make_shared<CancelToken>();
    {
      std::lock_guard lock(mutex_);
      current_ = token;
      current_user_ = user;
      cancelled_by_user_ = false;
    }
    StreamOptions stream = s_.options_.stream;
    stream.spinup_at_once = s_.first_turn_.exchange(false);
    ReplyStream observer(s_.channel_, chat_id_, stream);
    request.chat_id = chat_id_;
    // A turn cut short by a shutdown stays open and is resumed at the next start.
    request.keep_open_if_cancelled = [this] { return s_.stopping_.load(); };
    if (s_.typing_) s_.typing_->start(chat_id_);
    auto result = s_.agent_.run(request, observer, *token);  // never throws
    if (s_.typing_) s_.typing_->stop(chat_id_);
    deliver(observer, result);
    std::lock_guard lock(mutex_);
    current_.reset();
    return result;
  }

  void runUserTurn(const InboundMessage& batch, const std::vector<int64_t>& inbox_ids) {
    agent::TurnRequest request;
    request.text = batch.text;
    request.images = batch.images;
    request.inbox_ids = inbox_ids;
    auto result = runTurn(std::move(request), true);
    if (!result.status.isCancelled()) return;
    std::lock_guard lock(mutex_);
    // An interrupted turn that recorded nothing but the message is re-joined with the new
    // bubbles, so the model sees one message; one that ran tools keeps its record, and so
    // does one a shutdown cut short (the next start continues it).
    if (!s_.stopping_ && !cancelled_by_user_ && !result.progressed && result.user_message_id) {
      s_.messages_.hideMessage(result.user_message_id);
      carried_ = batch.text;
    }
  }

  void runResumed() {
    agent::TurnRequest request;
    request.resume = true;
    runTurn(std::move(request), false);  // not cut short by new bubbles: they wait for it
  }

  void runScheduled(ScheduledJob& job) {
    agent::TurnRequest request;
    request.text = job.prompt;
    request.approval_id = job.approval_id;
    auto result = runTurn(std::move(request), false);
    if (result.status.isOk()) {
      job.done.set_value(result.reply);
    } else {
      job.done.set_value(result.status);
    }
  }

  /// Delivers the turn's outcome, marked sending in the outbox just before and confirmed
  /// after the channel returns, with the next write (at the latest when the chat goes idle):
  /// a crash in between sends it at the next start, as a possible repeat (the one way a reply
  /// can reach the owner twice).
  /// One the channel refused is sent again later (addRedeliver), older ones first.
  void deliver(ReplyStream& observer, const agent::TurnResult& result) {
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

  void redeliver() {
    std::vector<int64_t> ids;
    {
      std::lock_guard lock(mutex_);
      ids.swap(undelivered_);
    }
    deliverLate(s_.outbox_, s_.channel_, &ids);
    std::lock_guard lock(mutex_);
    undelivered_.insert(undelivered_.begin(), ids.begin(), ids.end());
  }

  ChatService& s_;
  std::string chat_id_;
  std::mutex mutex_;
  std::condition_variable cv_;
  std::deque<InboundMessage> bubbles_;
  std::deque<int64_t> bubble_ids_;  ///< inbox ids, parallel to bubbles_
  std::deque<std::unique_ptr<ScheduledJob>> scheduled_;
  std::shared_ptr<CancelToken> current_;
  bool current_user_ = false;
  bool cancelled_by_user_ = false;
  bool settle_ = false;
  bool reset_ = false;
  bool resume_ = false;
  bool redeliver_ = false;
  std::vector<int64_t> undelivered_;  ///< outbox ids the channel refused, oldest first
  bool busy_ = false;
  bool stop_ = false;
  std::string carried_;
  SettleClock::TimePoint last_bubble_{};
  std::thread thread_;
};

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
      index_compaction_(store),
      options_(options),
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
  try {
    if (stopping_) return;
    log::debug("message_received",
               {{"chat", message.chat_id}, {"chars", std::to_string(message.text.size())}});
    if (handleCommand(message)) return;
    if (handedOverAgain(message)) return;
    // Recorded before anything else, so a crash before its turn records it loses nothing.
    auto id = inbox_.add(message);
    if (!id.isOk()) log::error("inbox_write_failed", {{"error", id.status().message()}});
    Worker& target = worker(message.chat_id);
    target.addBubble(std::move(message), id.isOk() ? id.value() : 0);
  } catch (const std::exception& e) {
    log::error("message_dropped", {{"error", e.what()}});
  }
}

bool ChatService::handleCommand(const InboundMessage& m) {
  // Leading space allowed: a Slack client takes a message starting with / as its own command.
  const std::string line(text::trim(m.text));
  std::string cmd = line.substr(0, line.find_first_of(" @\n"));
  if (cmd == "/cancel") {
    bool any = worker(m.chat_id).cancelAll(false);
    channel_.send(m.chat_id, any ? "Cancelled." : "Nothing to cancel.");
  } else if (cmd == "/new") {
    worker(m.chat_id).cancelAll(true);
  } else if (auto report = texts_.find(cmd); report != texts_.end()) {
    channel_.send(m.chat_id, report->second ? report->second(m.chat_id) : "");
  } else if (cmd == "/approve" || cmd == "/deny") {
    channel_.send(m.chat_id, decide(m, line, cmd == "/approve"));
  } else if (cmd == "/start" || cmd == "/help") {
    channel_.send(m.chat_id, helpText());
  } else if (isReportCommand(cmd)) {
    channel_.send(m.chat_id, cmd + " is not available here.");
  } else {
    return false;
  }
  return true;
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

void ChatService::flushStore() {
  if (Status s = store_.flush(); !s.isOk()) {
    log::warn("pending_rows_not_written", {{"error", s.message()}});
  }
}

void ChatService::recoverAfterRestart() {
  bool replay = caps_.replays_inbox;
  auto resume = settleOpenTurns(turns_, replay);
  deliverPending(outbox_, channel_, replay);
  flushStore();  // the done marks of what it sent (no chat may go idle for a while)
  for (const auto& turn : resume) {
    log::warn("turn_resuming", {{"chat", turn.chat_id}});
    worker(turn.chat_id).addResume();
  }
  replayInbox(replay);
  if (follow_up_) follow_up_->wake();  // approvals decided while the process was down
}

void ChatService::replayInbox(bool replay) {
  auto pending = inbox_.pending();
  if (!pending.isOk()) {
    log::error("inbox_read_failed", {{"error", pending.status().message()}});
    return;
  }
  for (auto& [id, message] : pending.value()) {
    if (!replay) {
      inbox_.markHandled({id});
      continue;
    }
    log::warn("inbox_replayed", {{"chat", message.chat_id}, {"inbox_id", std::to_string(id)}});
    Worker& target = worker(message.chat_id);
    target.addBubble(std::move(message), id);
  }
}

Result<std::string> ChatService::runScheduled(const std::string& chat_id,
                                              const std::string& prompt) {
  if (stopping_) return Status::cancelled("shutting down");
  auto done = worker(chat_id).addScheduled(prompt);
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
