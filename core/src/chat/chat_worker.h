#pragma once
/// ChatService::Worker: one chat's thread. It takes the chat's events from one ordered queue
/// and runs them one at a time through a small state machine:
///
///   kIdle ──event──> kOwnerTurn (bubbles) | kBusy (anything else) ──done──> kIdle
///   kOwnerTurn ──a bubble, when joining──> the turn is cancelled; its message waits at the
///              front, and the next take is kSettling: COALESCE_SETTLE_MS of quiet, then the
///              bubbles at the front are joined into one turn
///
/// On ordered input (a pipe) nothing interrupts or joins: every event has its turn in order.

#include <atomic>
#include <condition_variable>
#include <deque>
#include <future>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <thread>
#include <vector>

#include "chat/chat_events.h"
#include "chat/chat_service.h"

namespace gantry::chat {

class ChatService::Worker {
 public:
  /// Starts the chat's thread; service outlives the worker.
  Worker(ChatService& service, std::string chat_id);
  /// Cancels the running turn, joins the thread, and answers the scheduled runs that never
  /// started (cancelled), so no caller waits forever.
  ~Worker();
  Worker(const Worker&) = delete;
  Worker& operator=(const Worker&) = delete;

  /// Queues events behind what waits, together (so a batch of bubbles is taken as one turn).
  /// Bubbles interrupt the owner's running turn where messages are joined.
  void add(std::vector<ChatEvent> events);
  /// Queues a scheduled run; the future receives its reply or error.
  std::future<Result<std::string>> addScheduled(std::string prompt, std::string approval_id);
  /// Queues another send of the replies the channel refused (when there are any).
  void addRedeliver();

  /// What /cancel or /new dropped.
  struct Dropped {
    bool turn = false;  ///< a running turn was cancelled
    int messages = 0;   ///< waiting messages were dropped (their inbox rows marked handled)
  };
  /// /cancel and /new on a chat channel: halts the running turn and drops the waiting
  /// bubbles; reset queues the session's reset ahead of everything else.
  Dropped cancelAll(bool reset);

  /// Nothing queued and nothing running (the wind-down after the last event included).
  bool idle();
  /// Cancels the running turn, if any (shutdown).
  void cancelCurrent();

 private:
  enum class Phase { kIdle, kSettling, kOwnerTurn, kBusy };

  void loop();
  std::optional<ChatEvent> next(std::unique_lock<std::mutex>& lock);
  ChatEvent take(Phase phase);
  void waitForQuiet(std::unique_lock<std::mutex>& lock);
  bool idleLocked() const;

  void run(Bubbles& bubbles);
  void tellOwner();
  bool refusedByGate(const Bubbles& bubbles);
  void run(Command& command);
  void run(Scheduled& scheduled);
  void run(Resume& resume);
  void run(Reset& reset);
  void run(Redeliver& redeliver);
  agent::TurnResult runTurn(agent::TurnRequest request);
  void deliver(ReplyStream& observer, const agent::TurnResult& result);
  void redeliver();

  void windDown();
  void indexMessages();
  bool nothingWaiting();
  void releaseIdleMemory();

  ChatService& s_;
  const std::string chat_id_;
  std::mutex mutex_;
  std::condition_variable cv_;
  std::deque<ChatEvent> queue_;
  Phase phase_ = Phase::kIdle;
  std::shared_ptr<CancelToken> current_;  ///< the running turn's
  bool cancelled_by_owner_ = false;       ///< the running turn was halted by /cancel or /new
  bool settle_ = false;                   ///< a bubble interrupted a turn: settle before joining
  SettleClock::TimePoint last_bubble_{};
  std::vector<int64_t> undelivered_;  ///< outbox ids the channel refused, oldest first
  bool stop_ = false;
  std::thread thread_;  ///< last: it runs on the members above
};

}  // namespace gantry::chat
