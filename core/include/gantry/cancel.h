#pragma once
/// CancelToken: cooperative cancellation shared between the core and a module.

#include <atomic>
#include <condition_variable>
#include <functional>
#include <mutex>
#include <thread>
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
      firing_ = std::this_thread::get_id();
    }
    for (auto& callback : callbacks) callback();
    {
      std::lock_guard lock(mutex_);
      firing_ = {};
    }
    fired_.notify_all();
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

  /// Drops the callback registered under id. When cancel() is running the callbacks on
  /// another thread, waits until they have all run: once this returns, none of them is
  /// running or will run, so what the callback uses may be destroyed. Call it holding no
  /// lock a callback takes.
  void unsubscribe(std::size_t id) const {
    std::unique_lock lock(mutex_);
    if (id > 0 && id <= callbacks_.size()) callbacks_[id - 1] = [] {};
    fired_.wait(lock, [this] {
      return firing_ == std::thread::id() || firing_ == std::this_thread::get_id();
    });
  }

 private:
  std::atomic<bool> cancelled_{false};
  // Subscribing does not change whether the token is cancelled, so it works on a const
  // token (modules receive `const CancelToken&`).
  mutable std::mutex mutex_;
  mutable std::condition_variable fired_;
  mutable std::vector<std::function<void()>> callbacks_;
  std::thread::id firing_;  ///< the thread running the callbacks cancel() took; none after
};

}  // namespace gantry
