#include "chat/typing_pulses.h"

#include <algorithm>

namespace gantry::chat {

TypingPulses::TypingPulses(Channel& channel) : channel_(channel), thread_([this] { loop(); }) {}

TypingPulses::~TypingPulses() {
  {
    std::lock_guard lock(mutex_);
    done_ = true;
  }
  cv_.notify_all();
  thread_.join();
}

void TypingPulses::start(const std::string& chat_id) {
  {
    std::lock_guard lock(mutex_);
    due_[chat_id] = Clock::now();
  }
  cv_.notify_all();
}

void TypingPulses::stop(const std::string& chat_id) {
  std::unique_lock lock(mutex_);
  due_.erase(chat_id);
  cv_.notify_all();  // the thread no longer waits for this chat's next indicator
  cv_.wait(lock, [&] { return in_flight_ != chat_id; });
}

void TypingPulses::loop() {
  std::unique_lock lock(mutex_);
  while (!done_) {
    auto next = std::min_element(due_.begin(), due_.end(),
                                 [](const auto& a, const auto& b) { return a.second < b.second; });
    if (next == due_.end()) {
      cv_.wait(lock);
      continue;
    }
    if (const Clock::time_point due = next->second; Clock::now() < due) {
      cv_.wait_until(lock, due);  // a copy: stop() may erase the entry while this waits
      continue;
    }
    next->second = Clock::now() + kPeriod;
    in_flight_ = next->first;
    const std::string chat_id = in_flight_;
    lock.unlock();
    channel_.typing(chat_id);
    lock.lock();
    in_flight_.clear();
    cv_.notify_all();
  }
}

}  // namespace gantry::chat
