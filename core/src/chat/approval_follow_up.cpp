#include "chat/approval_follow_up.h"

#include "log/log.h"

namespace gantry::chat {

ApprovalFollowUp::ApprovalFollowUp(approvals::Approvals& approvals, Handler handler,
                                   std::chrono::milliseconds poll)
    : approvals_(approvals),
      handler_(std::move(handler)),
      poll_(poll),
      thread_([this] { loop(); }) {}

ApprovalFollowUp::~ApprovalFollowUp() {
  {
    std::lock_guard lock(mutex_);
    stop_ = true;
  }
  cv_.notify_all();
  thread_.join();
}

void ApprovalFollowUp::wake() {
  {
    std::lock_guard lock(mutex_);
    woken_ = true;
  }
  cv_.notify_all();
}

void ApprovalFollowUp::loop() {
  std::unique_lock lock(mutex_);
  bool polling = false;
  while (true) {
    if (polling) {
      cv_.wait_for(lock, poll_, [this] { return stop_ || woken_; });
    } else {
      cv_.wait(lock, [this] { return stop_ || woken_; });
    }
    if (stop_) break;
    woken_ = false;
    lock.unlock();
    auto settled = approvals_.takeSettledParked();
    if (!settled.isOk()) {
      log::warn("approval_follow_up_failed", {{"error", settled.status().message()}});
    } else {
      for (const auto& row : settled.value()) handler_(row);
    }
    polling = approvals_.anyParkedPending();
    lock.lock();
  }
}

}  // namespace gantry::chat
