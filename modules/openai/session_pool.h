#pragma once
/// SessionPool: idle keep-alive connections to the model server, so the calls of one turn
/// (tool rounds) skip the TCP and TLS handshakes. Thread-safe.

#include <memory>
#include <mutex>
#include <vector>

#include "Poco/Net/HTTPClientSession.h"

namespace gantry::openai {

class SessionPool {
 public:
  /// An idle connected session, or null when there is none.
  std::unique_ptr<Poco::Net::HTTPClientSession> take();
  /// Keeps a session whose last response was read to its end (dropped when the pool is full).
  void give(std::unique_ptr<Poco::Net::HTTPClientSession> session);

 private:
  static constexpr std::size_t kMaxIdle = 4;
  std::mutex mutex_;
  std::vector<std::unique_ptr<Poco::Net::HTTPClientSession>> idle_;
};

}  // namespace gantry::openai
