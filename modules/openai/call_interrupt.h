#pragma once
/// CallInterrupt: ties one provider call to the caller's CancelToken. A cancel shuts down the
/// attached socket (a blocked read returns at once) and wakes a backoff sleep.

#include <chrono>
#include <condition_variable>
#include <memory>
#include <mutex>

#include "Poco/Net/StreamSocket.h"
#include "gantry/cancel.h"

namespace gantry::openai {

/// Lives for one chat() call on its thread; the cancel may come from any thread.
class CallInterrupt {
 public:
  explicit CallInterrupt(const CancelToken& token);
  ~CallInterrupt();
  CallInterrupt(const CallInterrupt&) = delete;
  CallInterrupt& operator=(const CallInterrupt&) = delete;

  bool cancelled() const;
  /// Makes socket the one a cancel shuts down (until detach()); shuts it down at once when
  /// already cancelled. The socket must stay valid until detach().
  void attach(Poco::Net::StreamSocket& socket);
  void detach();
  /// Sleeps for delay; returns false, early, when cancelled.
  bool sleepFor(std::chrono::milliseconds delay);

 private:
  // Shared with the token's callback, which may still run after this object is gone.
  struct State {
    std::mutex mutex;
    std::condition_variable wake;
    bool cancelled = false;
    Poco::Net::StreamSocket* socket = nullptr;
    void fire();
  };

  const CancelToken& token_;
  std::shared_ptr<State> state_ = std::make_shared<State>();
  std::size_t subscription_ = 0;
};

/// Attaches a socket for the lifetime of a scope.
class AttachedSocket {
 public:
  AttachedSocket(CallInterrupt& interrupt, Poco::Net::StreamSocket& socket)
      : interrupt_(interrupt) {
    interrupt_.attach(socket);
  }
  ~AttachedSocket() { interrupt_.detach(); }
  AttachedSocket(const AttachedSocket&) = delete;
  AttachedSocket& operator=(const AttachedSocket&) = delete;

 private:
  CallInterrupt& interrupt_;
};

}  // namespace gantry::openai
