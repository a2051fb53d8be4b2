#pragma once
/// SlackChannel: gantry::Channel over Socket Mode (receive) and the Web API (send).

#include <chrono>
#include <condition_variable>
#include <deque>
#include <memory>
#include <mutex>
#include <set>
#include <string>
#include <unordered_set>
#include <vector>

#include "gantry/channel.h"
#include "gantry/host.h"
#include "slack_api.h"
#include "slack_socket.h"
#include "slack_web.h"

namespace gantry::slack {

/// The module's configuration, read from the host (SLACK_* keys).
struct Config {
  std::string bot_token;
  std::string app_token;
  std::string api_base = "https://slack.com/api";
  std::set<std::string, std::less<>> allowed_users;
};

/// Reads and checks SLACK_BOT_TOKEN (xoxb-), SLACK_APP_TOKEN (xapp-), SLACK_ALLOWED_USERS
/// and SLACK_API_BASE. Fails with a message naming the variable.
Result<Config> readConfig(const Host& host);

/// run() validates the bot token (auth.test), then keeps one Socket Mode connection open:
/// a `disconnect` (refresh) opens the next connection before the old one is let go, drops
/// reconnect with backoff (1 s doubling to 60 s), and events are deduplicated across
/// connections. Envelopes are acked on the socket threads; events are handed to the sink on
/// the run() thread. send/edit/sendPhoto are thread-safe and may run concurrently with run().
class SlackChannel final : public Channel, private SocketListener {
 public:
  SlackChannel(Host& host, Config config);
  ~SlackChannel() override;
  SlackChannel(const SlackChannel&) = delete;
  SlackChannel& operator=(const SlackChannel&) = delete;

  ChannelCaps caps() const noexcept override;
  Status run(InboundSink& sink) noexcept override;
  void stop() noexcept override;
  Result<std::string> send(const std::string& chat_id, std::string_view text) noexcept override;
  Status edit(const std::string& chat_id, const std::string& message_id,
              std::string_view text) noexcept override;
  Status typing(const std::string& chat_id) noexcept override;
  Result<std::string> sendPhoto(const std::string& chat_id, const Image& image,
                                std::string_view caption) noexcept override;

 private:
  using Clock = std::chrono::steady_clock;

  Status runLoop(InboundSink& sink);
  Status authenticate();
  Status connect();
  bool wantsConnection();
  void waitForWork(Clock::time_point until);
  void reap(Clock::time_point* next_attempt, Clock::duration* delay);
  void closeAll();
  void drainQueue(InboundSink& sink);
  void handlePayload(const std::string& payload, InboundSink& sink);
  void attachImages(EventDecision& decision);
  bool firstTime(const std::string& key);
  Result<std::string> post(const std::string& chat_id, const std::string& text);

  void onEnvelope(SocketConnection& connection, Envelope envelope) override;
  void onClosed(SocketConnection& connection, const std::string& why) override;

  Host& host_;
  Config config_;
  Audience audience_;
  WebClient inbound_web_;   ///< run()'s calls; interrupted by stop()
  WebClient outbound_web_;  ///< replies; never interrupted, so a final reply is not lost
  Poco::Net::Context::Ptr tls_;

  std::mutex mutex_;
  std::condition_variable wake_;
  bool stop_ = false;
  std::string fatal_;
  std::set<int> refresh_ids_;  ///< connections Slack asked us to replace
  bool hello_ = false;
  int next_id_ = 1;
  std::unique_ptr<SocketConnection> current_;
  std::vector<std::pair<std::unique_ptr<SocketConnection>, Clock::time_point>> retiring_;
  std::deque<std::string> payloads_;

  // Dedupe keys of handled events (run() thread only), bounded.
  std::unordered_set<std::string> seen_;
  std::deque<std::string> seen_order_;
};

}  // namespace gantry::slack
