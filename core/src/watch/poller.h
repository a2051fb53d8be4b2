#pragma once
/// The watch poller (DESIGN 7): calls each watch's tool when it is due, with no model call,
/// and starts a turn only when the result holds items the watch has not seen. One thread;
/// it sleeps until the next watch is due (at most a minute) or, with no watch, until one is
/// added.

#include <chrono>
#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "cron/cron_options.h"
#include "cron/ticker.h"
#include "gantry/cancel.h"
#include "store/watch_repo.h"
#include "tools/tool_source.h"
#include "watch/items.h"
#include "watch/watch_options.h"

namespace gantry::watch {

/// How a watch's turn went, as far as its items are concerned.
enum class TurnOutcome {
  kRan,         ///< the turn ran (whatever its reply): the items were shown
  kNotStarted,  ///< refused before it started (shutting down): the items count as new again
  kSkipped,     ///< skipped (the daily token cap): the items count as new again
};

/// What the poller needs from the core. Each is called on the poller's thread.
struct PollerHooks {
  /// Calls the watched tool (watch/watch_call.h); cancel is set by stop().
  std::function<tools::ToolResult(const store::Watch&, const CancelToken& cancel)> call;
  /// Runs message as a scheduled turn on the watch's chat and pushes its reply there;
  /// blocks until the turn ends.
  std::function<TurnOutcome(const store::Watch&, const std::string& message)> run_turn;
  /// Pushes a notice (a watch failing, or working again) to a chat.
  std::function<void(const std::string& chat_id, const std::string& text)> notify;
};

/// A failing watch is told to its chat after this many failed polls in a row, once.
constexpr int kReportAfterFailures = 2;
/// Seen ids kept per watch (the least recently seen are dropped first): twice what one
/// result can hold, so every item of the last result is always among them.
constexpr std::size_t kSeenKept = 2 * kMaxItems;
/// A failed poll's retry waits WATCH_MIN_SECONDS doubled per failure in a row, at most this.
constexpr int64_t kMaxBackoffMs = 6LL * 3600 * 1000;

/// Owns the poller thread. Non-copyable; the store must outlive it.
///
/// For each due watch: the next poll is stored BEFORE the tool is called, so a crash never
/// polls in a loop. The first successful poll only records the ids it finds. Later polls
/// record every id they find; those not seen before start one turn with the watch's prompt
/// and only those items. A failed poll (tool error, refusal, unreadable items) is retried
/// with backoff and told to the watch's chat once, after kReportAfterFailures in a row; the
/// next successful poll says it works again. A poll missed while the process was down runs
/// once at start.
class Poller {
 public:
  using Clock = std::function<int64_t()>;  ///< Unix ms

  /// `clock` defaults to the system clock. Nothing runs before start().
  Poller(store::Store& store, cron::Zone zone, WatchOptions options, PollerHooks hooks,
         Clock clock = nullptr);
  ~Poller() { stop(); }
  Poller(const Poller&) = delete;
  Poller& operator=(const Poller&) = delete;

  /// Starts the thread; the first pass runs at once (catching up missed polls). Idempotent.
  void start() { ticker_.start(); }
  /// A watch was added: the poller looks at the watches again. Safe from any thread.
  void watchesChanged() { ticker_.wake(); }
  /// Cancels a tool call in flight, wakes and joins the thread (a turn in flight finishes
  /// first; the core cancels it). Idempotent; safe without start().
  void stop();

  /// One pass over the due watches at clock(); returns how many were polled. The thread
  /// calls this; tests may call it directly (not concurrently with a running thread).
  int pollDue();

  /// The next poll of w after one at now: its interval (at least WATCH_MIN_SECONDS) or its
  /// schedule's next slot in the zone, at least WATCH_MIN_SECONDS after the slot it ran for.
  std::optional<int64_t> regularNext(const store::Watch& w, int64_t now) const;

 private:
  std::optional<std::chrono::milliseconds> untilNextPoll(int polled);
  void poll(store::Watch w, int64_t now);
  tools::ToolResult guardedCall(const store::Watch& w);
  void failed(store::Watch& w, const std::string& error, int64_t now);
  void recovered(store::Watch& w);
  void record(store::Watch& w, const std::vector<Item>& items, int64_t now);
  void runTurn(const store::Watch& w, const std::vector<Item>& items,
               const std::vector<std::string>& fresh);
  void save(const store::Watch& w);

  store::WatchRepo repo_;
  cron::Zone zone_;
  WatchOptions options_;
  PollerHooks hooks_;
  Clock clock_;
  CancelToken cancel_;
  cron::Ticker ticker_{[this] { return untilNextPoll(pollDue()); }};  ///< last: stopped first
};

}  // namespace gantry::watch
