#pragma once
/// OneShotEvent: an event a test waits for, so threads meet without sleeps. wait() gives up
/// after a guard time only so that a broken build fails instead of hanging.

#include <chrono>
#include <condition_variable>
#include <mutex>

namespace gantry::testing {

class OneShotEvent {
 public:
  /// Sets the signal and wakes every waiter. Thread-safe, idempotent.
  void set() {
    {
      std::lock_guard lock(mutex_);
      set_ = true;
    }
    cv_.notify_all();
  }
  /// True once set(); false when guard passed first.
  bool wait(std::chrono::milliseconds guard = std::chrono::seconds(10)) {
    std::unique_lock lock(mutex_);
    return cv_.wait_for(lock, guard, [this] { return set_; });
  }
  bool isSet() {
    std::lock_guard lock(mutex_);
    return set_;
  }

 private:
  std::mutex mutex_;
  std::condition_variable cv_;
  bool set_ = false;
};

}  // namespace gantry::testing
