#include "cron/ticker.h"

namespace gantry::cron {

void Ticker::start() {
  std::lock_guard lock(mutex_);
  if (thread_.joinable()) return;
  stopping_ = false;
  thread_ = std::thread([this] { loop(); });
}

void Ticker::wake() {
  {
    std::lock_guard lock(mutex_);
    woken_ = true;
  }
  wake_.notify_all();
}

void Ticker::stop() {
  {
    std::lock_guard lock(mutex_);
    stopping_ = true;
  }
  wake_.notify_all();
  if (thread_.joinable() && thread_.get_id() != std::this_thread::get_id()) thread_.join();
}

bool Ticker::stopping() {
  std::lock_guard lock(mutex_);
  return stopping_;
}

void Ticker::loop() {
  std::unique_lock lock(mutex_);
  while (!stopping_) {
    woken_ = false;  // a wake from here on ends the wait below
    lock.unlock();
    const auto wait = pass_();
    lock.lock();
    auto woken = [this] { return stopping_ || woken_; };
    if (wait) {
      wake_.wait_for(lock, *wait, woken);
    } else {
      wake_.wait(lock, woken);
    }
  }
}

}  // namespace gantry::cron
