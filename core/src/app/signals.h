#pragma once
/// Signals: SIGTERM/SIGINT begin a graceful stop, SIGHUP reloads the persona. Handled on a
/// dedicated thread with sigwait, so no work happens inside a signal handler.

#include <pthread.h>

#include <atomic>
#include <functional>
#include <thread>

namespace gantry::app {

/// Blocks the signals in the calling thread (call before starting any thread, so every
/// thread inherits the mask).
void blockSignals();

/// The thread that takes the signals: on_stop runs once per SIGTERM/SIGINT, on_reload per
/// SIGHUP, on that thread. Destroying it ends and joins the thread, so a callback never runs
/// after what it uses is gone; a signal arriving after that stays pending.
class SignalThread {
 public:
  SignalThread(std::function<void()> on_stop, std::function<void()> on_reload);
  ~SignalThread();
  SignalThread(const SignalThread&) = delete;
  SignalThread& operator=(const SignalThread&) = delete;

 private:
  std::atomic<bool> quit_{false};
  std::thread thread_;
};

}  // namespace gantry::app
