#include "session_pool.h"

namespace gantry::openai {

std::unique_ptr<Poco::Net::HTTPClientSession> SessionPool::take() {
  std::lock_guard lock(mutex_);
  while (!idle_.empty()) {
    std::unique_ptr<Poco::Net::HTTPClientSession> session = std::move(idle_.back());
    idle_.pop_back();
    if (session->connected()) return session;
  }
  return nullptr;
}

void SessionPool::give(std::unique_ptr<Poco::Net::HTTPClientSession> session) {
  std::lock_guard lock(mutex_);
  if (idle_.size() < kMaxIdle) idle_.push_back(std::move(session));
}

}  // namespace gantry::openai
