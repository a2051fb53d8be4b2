#pragma once
// A SettleClock that moves only when a test advances it, and lets the test wait until the
// chat worker sleeps on it, so settle periods are covered without real waits.

#include <chrono>
#include <condition_variable>
#include <list>
#include <mutex>

#include "chat/settle_clock.h"

namespace gantry::testing {

class ManualSettleClock final : public chat::SettleClock {
 public:
  TimePoint now() override {
    std::lock_guard lock(mutex_);
    return now_;
  }

  void waitUntil(std::condition_variable& cv, std::unique_lock<std::mutex>& lock,
                 TimePoint deadline) override {
    std::list<Sleeper>::iterator self;
    {
      std::lock_guard guard(mutex_);
      // Checked under mutex_, so an advance() either happened before (seen here) or finds
      // this sleeper registered and wakes it.
      if (now_ >= deadline) return;
      self = sleepers_.insert(sleepers_.end(), {&cv, lock.mutex(), deadline, epoch_});
      ++sleeps_;
    }
    changed_.notify_all();
    cv.wait(lock);
    std::lock_guard guard(mutex_);
    sleepers_.erase(self);
  }

  /// Moves time on and wakes every sleeper.
  void advance(std::chrono::milliseconds by) {
    std::list<Sleeper> woken;
    {
      std::lock_guard lock(mutex_);
      now_ += by;
      ++epoch_;
      woken = sleepers_;
    }
    for (const auto& s : woken) {
      // Taking the sleeper's own lock first means it is inside cv.wait, not about to enter.
      { std::lock_guard sleeper_lock(*s.mutex); }
      s.cv->notify_all();
    }
  }

  /// Blocks until a thread sleeps until deadline, having gone to sleep since the last
  /// advance(); false after a guard time.
  bool waitForSleep(TimePoint deadline) {
    std::unique_lock lock(mutex_);
    return changed_.wait_for(lock, std::chrono::seconds(10), [&] {
      for (const auto& s : sleepers_) {
        if (s.deadline == deadline && s.epoch == epoch_) return true;
      }
      return false;
    });
  }

  /// How many times a thread has gone to sleep on this clock.
  int sleeps() {
    std::lock_guard lock(mutex_);
    return sleeps_;
  }

 private:
  struct Sleeper {
    std::condition_variable* cv;
    std::mutex* mutex;
    TimePoint deadline;
    int epoch;
  };

  std::mutex mutex_;
  std::condition_variable changed_;
  TimePoint now_{};
  int epoch_ = 0;
  int sleeps_ = 0;
  std::list<Sleeper> sleepers_;
};

}  // namespace gantry::testing
