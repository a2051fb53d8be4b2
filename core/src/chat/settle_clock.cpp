#include "chat/settle_clock.h"

namespace gantry::chat {
namespace {

class SteadySettleClock final : public SettleClock {
 public:
  TimePoint now() override { return std::chrono::steady_clock::now(); }
  void waitUntil(std::condition_variable& cv, std::unique_lock<std::mutex>& lock,
                 TimePoint deadline) override {
    cv.wait_until(lock, deadline);
  }
};

}  // namespace

SettleClock& steadySettleClock() {
  static SteadySettleClock clock;
  return clock;
}

}  // namespace gantry::chat
