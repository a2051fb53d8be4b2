#pragma once
/// SettleClock: the time a chat worker measures COALESCE_SETTLE_MS of quiet by. The daemon
/// uses the real steady clock; tests substitute a manual clock (tests/fakes/) so coalescing
/// is covered deterministically, without real waits.

#include <chrono>
#include <condition_variable>
#include <mutex>

namespace gantry::chat {

class SettleClock {
 public:
  using TimePoint = std::chrono::steady_clock::time_point;

  virtual ~SettleClock() = default;
  /// The current time. Any thread.
  virtual TimePoint now() = 0;
  /// Blocks on cv (lock held on entry, released while blocked, held again on return) until
  /// cv is notified or now() reaches deadline. May return early: the caller re-checks.
  virtual void waitUntil(std::condition_variable& cv, std::unique_lock<std::mutex>& lock,
                         TimePoint deadline) = 0;
};

/// The real steady clock; one shared instance, safe on any thread.
SettleClock& steadySettleClock();

}  // namespace gantry::chat
