#pragma once
/// The cron ticker: it runs the jobs that are due, one at a time, through a callback the core
/// supplies, then sleeps until the next job's slot (at most CRON_TICK_SECONDS) or, with no job
/// to run, until one is added: an instance without jobs has no cron wake-ups.

#include <chrono>
#include <cstdint>
#include <functional>
#include <optional>
#include <string>

#include "cron/cron_options.h"
#include "cron/ticker.h"
#include "store/cron_repo.h"

namespace gantry::cron {

/// Runs one job's prompt as a turn on job.chat_id and pushes the reply there. Called on the
/// ticker thread, one job at a time; serializing with the chat's other turns is the caller's
/// business. The returned Status is recorded as the run's outcome (ok, error, retry,
/// cancelled) with its message as detail. Exceptions are caught and recorded as errors.
using RunTurn = std::function<Status(const store::CronJob& job)>;

/// Asked before each run: nullopt to run it, or why it is skipped (the daily token cap); a
/// skipped run is recorded with outcome "skipped" and that detail, and runs no turn.
struct Skip {
  std::string detail;
  int64_t resume_at = 0;  ///< ms: when a skipped one-shot job is tried again
};
using Gate = std::function<std::optional<Skip>(const store::CronJob& job)>;

/// Owns the ticker thread. Non-copyable; the store must outlive it.
///
/// For each due job, in order: the next slot is stored (a one-shot's is cleared) and the run's
/// start recorded BEFORE the turn runs, so a crash mid-turn never runs the slot twice; then
/// the turn runs and its outcome is recorded; a one-shot is then deleted. A job whose slots
/// were missed while the process was down runs once, then moves to its next future slot.
class Scheduler {
 public:
  using Clock = std::function<int64_t()>;  ///< Unix ms

  /// `clock` defaults to the system clock. Nothing runs before start().
  Scheduler(store::Store& store, Zone zone, int tick_seconds, RunTurn run_turn,
            Clock clock = nullptr);
  Scheduler(const Scheduler&) = delete;
  Scheduler& operator=(const Scheduler&) = delete;

  /// Sets the gate every due job passes first; before start().
  void setGate(Gate gate) { gate_ = std::move(gate); }
  /// Starts the ticker; the first pass runs at once (catching up missed jobs). Idempotent.
  void start() { ticker_.start(); }
  /// A job was added: the ticker looks at the jobs again. Safe from any thread, before start()
  /// too.
  void jobsChanged() { ticker_.wake(); }
  /// Wakes and joins the ticker; a turn in flight finishes first (the core cancels it if it
  /// must be quick). Idempotent; safe without start().
  void stop() { ticker_.stop(); }

  /// One pass over the due jobs at clock(); returns how many ran. The ticker calls this;
  /// tests may call it directly (not concurrently with a running ticker).
  int runDue();

 private:
  std::optional<std::chrono::milliseconds> untilNextRun(int ran);
  void runJob(const store::CronJob& job, int64_t now);
  bool advance(const store::CronJob& job, int64_t now, bool* one_shot);
  bool skipped(const store::CronJob& job, int64_t now, bool one_shot);

  store::CronRepo repo_;
  Zone zone_;
  int tick_seconds_;
  RunTurn run_turn_;
  Gate gate_;
  Clock clock_;
  Ticker ticker_{[this] { return untilNextRun(runDue()); }};  ///< last: stopped first
};

}  // namespace gantry::cron
