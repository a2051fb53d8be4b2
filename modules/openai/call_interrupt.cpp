#include "call_interrupt.h"

#include "gantry/net/wake_reader.h"

namespace gantry::openai {

void CallInterrupt::State::fire() {
  std::lock_guard lock(mutex);
  cancelled = true;
  if (socket != nullptr) net::wakeReader(*socket);  // closed later by its owner
  wake.notify_all();
}

CallInterrupt::CallInterrupt(const CancelToken& token) : token_(token) {
  subscription_ = token_.subscribe([state = state_] { state->fire(); });
}

CallInterrupt::~CallInterrupt() { token_.unsubscribe(subscription_); }

bool CallInterrupt::cancelled() const {
  std::lock_guard lock(state_->mutex);
  return state_->cancelled;
}

void CallInterrupt::attach(Poco::Net::StreamSocket& socket) {
  bool cancelled_now = false;
  {
    std::lock_guard lock(state_->mutex);
    state_->socket = &socket;
    cancelled_now = state_->cancelled;
  }
  if (cancelled_now) state_->fire();
}

void CallInterrupt::detach() {
  std::lock_guard lock(state_->mutex);
  state_->socket = nullptr;
}

bool CallInterrupt::sleepFor(std::chrono::milliseconds delay) {
  std::unique_lock lock(state_->mutex);
  return !state_->wake.wait_for(lock, delay, [this] { return state_->cancelled; });
}

}  // namespace gantry::openai
