#include "fetch/deadline_guard.h"

#include <Poco/Exception.h>

namespace gantry::fetch {

DeadlineGuard::DeadlineGuard(const Poco::Net::StreamSocket& socket, Clock::time_point deadline)
    : socket_(socket), thread_([this, deadline] { watch(deadline); }) {}

DeadlineGuard::~DeadlineGuard() {
  {
    std::lock_guard lock(mutex_);
    done_ = true;
  }
  disarmed_.notify_all();
  thread_.join();
}

bool DeadlineGuard::fired() const {
  std::lock_guard lock(mutex_);
  return fired_;
}

void DeadlineGuard::watch(Clock::time_point deadline) {
  std::unique_lock lock(mutex_);
  if (disarmed_.wait_until(lock, deadline, [this] { return done_; })) return;
  fired_ = true;
  try {
    socket_.shutdown();
  } catch (const Poco::Exception&) {
    // Already closed by its peer: the blocked read has ended anyway.
  }
}

}  // namespace gantry::fetch
