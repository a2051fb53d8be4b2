#pragma once
/// The thread behind the cron scheduler and the watch poller: it runs a pass, sleeps as long
/// as the pass says (or, told nothing, until woken), and starts over; wake() makes it look
/// again at once, stop() wakes and joins it.

#include <chrono>
#include <condition_variable>
#include <functional>
#include <mutex>
#include <optional>
#include <thread>

namespace gantry::cron {

class Ticker {
 public:
  /// Does the due work; returns how long to sleep, nullopt: until wake().
  using Pass = std::function<std::optional<std::chrono::milliseconds>()>;

  explicit Ticker(Pass pass) : pass_(std::move(pass)) {}
  ~Ticker() { stop(); }
  Ticker(const Ticker&) = delete;
  Ticker& operator=(const Ticker&) = delete;

  /// Starts the thread; the first pass runs at once. Idempotent.
  void start();
  /// The next pass runs at once (a wake during a pass is not lost). Safe from any thread.
  void wake();
  /// Wakes and joins the thread; a pass in flight finishes first. Idempotent; safe without
  /// start() and from the thread itself (then it only asks it to end).
  void stop();
  /// True once stop() was called: a pass ends early between its items.
  bool stopping();

 private:
  void loop();

  Pass pass_;
  std::mutex mutex_;
  std::condition_variable wake_;
  bool stopping_ = false;
  bool woken_ = false;
  std::thread thread_;
};

}  // namespace gantry::cron
