#pragma once
/// Gateway: one Discord Gateway session over WebSocket, kept alive across reconnects.
/// Hello -> Identify (or Resume after a drop) -> heartbeats with ACK tracking -> dispatches.
/// Everything runs on the thread that calls run(); stop() may be called from any thread.

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <deque>
#include <functional>
#include <memory>
#include <mutex>
#include <optional>
#include <random>
#include <set>
#include <string>
#include <unordered_set>

#include "discord_api.h"
#include "gantry/host.h"
#include "gantry/status.h"

namespace Poco::Net {
class WebSocket;
}

namespace gantry::discord {

struct GatewayOptions {
  std::string token;
  std::set<std::string> allowed_users;
};

class Gateway {
 public:
  /// What the session hands out, on the run() thread: each admitted DM once (deduplicated by
  /// message id across resumes), and a sign of life for every ACK or dispatch received.
  struct Callbacks {
    std::function<void(const DiscordMessage&)> message;
    std::function<void()> alive;
  };

  /// host must outlive the gateway.
  Gateway(Host& host, GatewayOptions options);
  ~Gateway();
  Gateway(const Gateway&) = delete;
  Gateway& operator=(const Gateway&) = delete;

  /// Connects to url (the Gateway base; "?v=10&encoding=json" is added) and keeps the session
  /// alive until stop() (returns ok) or a fatal close code such as 4004 or 4014 (returns an
  /// error naming what to check). Reconnects with backoff (1 s doubling to 60 s) after drops,
  /// resuming the session when Discord allows it. Call once.
  Status run(const std::string& url, const Callbacks& callbacks);
  /// Makes run() close the socket and return within a fraction of a second. Thread-safe.
  void stop();
  /// Sleeps for duration unless stop() comes first; false when stopping. Thread-safe.
  bool pause(std::chrono::milliseconds duration);

 private:
  using Clock = std::chrono::steady_clock;
  enum class Next { kResume, kIdentify, kFatal, kStop };
  /// How one connection ended and what comes next.
  struct Outcome {
    Next next = Next::kResume;
    std::string reason;
    std::chrono::milliseconds delay{-1};  ///< <0: the backoff; else exactly this wait
  };
  struct Link;

  Outcome connectOnce(bool resume, const Callbacks& callbacks);
  Outcome serve(Link& link, bool resume, const Callbacks& callbacks);
  std::optional<Outcome> pump(Link& link, const Callbacks& callbacks);
  std::optional<Outcome> heartbeatIfDue(Link& link);
  std::optional<Outcome> onText(Link& link, const std::string& text, const Callbacks& callbacks);
  std::optional<Outcome> onFrame(Link& link, const Frame& frame, const Callbacks& callbacks);
  void onHello(Link& link, const Frame& frame);
  void onDispatch(const Frame& frame, const Callbacks& callbacks);
  void onMessage(const Frame& frame, const Callbacks& callbacks);
  bool firstSighting(const std::string& message_id);
  Outcome closeAndReconnect(Link& link, Next next, std::string reason,
                            std::chrono::milliseconds delay);
  void sendText(Link& link, const std::string& text);
  void sleepFor(std::chrono::milliseconds duration);
  bool stopping() const;

  Host& host_;
  GatewayOptions options_;
  std::atomic<bool> stop_{false};
  std::mutex mutex_;
  std::condition_variable wake_;
  std::mt19937 random_;

  // Session state, touched only by the run() thread.
  std::string url_;
  std::string session_id_;
  std::string resume_url_;
  std::string self_id_;
  std::optional<std::int64_t> seq_;
  bool healthy_ = false;  // the current connection reached READY or RESUMED
  std::deque<std::string> recent_ids_;
  std::unordered_set<std::string> recent_set_;
};

}  // namespace gantry::discord
