#pragma once
/// ApprovalFollowUp: hands every parked approval, once settled, to the chat it belongs to —
/// a decision (from the chat, the CLI of another process or the API) starts the parked
/// turn's continuation, an expiry is told to the owner. It reads the store only while a
/// parked approval is still pending (a decision from another process is seen within a
/// poll); otherwise it sleeps until this process parks or decides one.

#include <chrono>
#include <condition_variable>
#include <functional>
#include <mutex>
#include <thread>

#include "approvals/approvals.h"

namespace gantry::chat {

class ApprovalFollowUp {
 public:
  using Handler = std::function<void(const store::ApprovalRow&)>;
  /// Starts the thread; handler runs on it for each settled approval, once.
  ApprovalFollowUp(approvals::Approvals& approvals, Handler handler,
                   std::chrono::milliseconds poll = std::chrono::seconds(1));
  ~ApprovalFollowUp();
  ApprovalFollowUp(const ApprovalFollowUp&) = delete;
  ApprovalFollowUp& operator=(const ApprovalFollowUp&) = delete;

  /// Something changed in this process (a park, a decision), or the restart's open turns
  /// are settled: look now. Nothing is looked at before the first wake().
  void wake();

 private:
  void loop();

  approvals::Approvals& approvals_;
  Handler handler_;
  std::chrono::milliseconds poll_;
  std::mutex mutex_;
  std::condition_variable cv_;
  /// The first look waits for ChatService::recoverAfterRestart: a decision taken while the
  /// process was down continues its turn only once that turn is known to be left to it (a
  /// look before that let the turn also be resumed, and answered without the call).
  bool woken_ = false;
  bool stop_ = false;
  std::thread thread_;
};

}  // namespace gantry::chat
