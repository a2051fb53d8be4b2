#pragma once
/// CancelToken: cooperative cancellation shared between the core and a module.

#include <atomic>
#include <functional>
#include <mutex>
#include <vector>

namespace gantry {

/// Set once by the core (/cancel, a new bubble, shutdown); read by whoever does the work.
/// Callbacks let blocking I/O be interrupted (e.g. abort a socket). Thread-safe.
class CancelToken {
 public:
  CancelToken() = default;
  CancelToken(const CancelToken&) = delete;
  CancelToken& operator=(const CancelToken&) = delete;

  bool cancelled() const { return cancelled_.load(); }

  /// Marks cancelled and runs every registered callback once, on the calling thread.
  void cancel() {
    std::vector<std::function<void()>> callbacks;
    {
      std::lock_guard lock(mutex_);
      if (cancelled_.exchange(true)) return;
      callbacks.swap(callbacks_);
    }
    for (auto& callback : callbacks) callback();
  }

  /// Registers a callback run at cancel(); runs it at once when already cancelled.
  /// Returns an id for unsubscribe(). The callback must stay valid until unsubscribed.
  std::size_t subscribe(std::function<void()> callback) const {
    {
      std::lock_guard lock(mutex_);
      if (!cancelled_) {
        callbacks_.push_back(std::move(callback));
        return callbacks_.size();
      }
    }
    callback();
    return 0;
  }

  /// Drops the callback registered under id (a no-op after cancel()).
  void unsubscribe(std::size_t id) const {
    std::lock_guard lock(mutex_);
    if (id > 0 && id <= callbacks_.size()) callbacks_[id - 1] = [] {};
  }

 private:
  std::atomic<bool> cancelled_{false};
  // Subscribing does not change whether the token is cancelled, so it works on a const
  // token (modules receive `const CancelToken&`).
  mutable std::mutex mutex_;
  mutable std::vector<std::function<void()>> callbacks_;
};

}  // namespace gantry
