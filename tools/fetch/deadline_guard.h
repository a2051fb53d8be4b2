#pragma once
/// The whole-fetch deadline, held against a server that drips: a socket's receive timeout
/// bounds one read, so a page sending a byte a second never trips it. At the deadline the
/// guard shuts the socket down, which ends whatever read is blocked on it (headers, body,
/// TLS, gzip), and says so through fired().

#include <Poco/Net/StreamSocket.h>

#include <chrono>
#include <condition_variable>
#include <mutex>
#include <thread>

namespace gantry::fetch {

class DeadlineGuard final {
 public:
  using Clock = std::chrono::steady_clock;

  DeadlineGuard(const Poco::Net::StreamSocket& socket, Clock::time_point deadline);
  ~DeadlineGuard();  ///< disarms and joins
  DeadlineGuard(const DeadlineGuard&) = delete;
  DeadlineGuard& operator=(const DeadlineGuard&) = delete;

  /// True once the deadline passed and the socket was shut down.
  bool fired() const;

 private:
  void watch(Clock::time_point deadline);

  Poco::Net::StreamSocket socket_;
  mutable std::mutex mutex_;
  std::condition_variable disarmed_;
  bool done_ = false;
  bool fired_ = false;
  std::thread thread_;
};

}  // namespace gantry::fetch
