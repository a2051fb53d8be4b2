#pragma once
/// FakeSlack: a loopback Slack for tests — the Web API methods the channel uses
/// (auth.test, apps.connections.open, chat.postMessage, chat.update, private file URLs) and
/// Socket Mode over a WebSocket (hello, envelopes that must be acked, redelivery of unacked
/// envelopes with retry_attempt+1, disconnect/refresh), following Slack's public docs.
/// Control methods (and /control/... HTTP routes for end-to-end tests) script events, errors
/// and disconnects. Listens on 127.0.0.1, ephemeral port. Thread-safe.

#include <chrono>
#include <functional>
#include <map>
#include <memory>
#include <string>
#include <vector>

namespace gantry::fakes {

class FakeSlack {
 public:
  struct Options {
    std::string bot_token = "xoxb-fake-bot";
    std::string app_token = "xapp-fake-app";
    std::string bot_user_id = "UBOT0FAKE";
    std::chrono::milliseconds redeliver_after{2500};  ///< unacked envelopes are resent
    int max_retries = 3;                              ///< like Slack: up to 3 retries
    std::size_t max_text_chars = 40000;               ///< longer text: msg_too_long
  };

  /// A message event to deliver over Socket Mode.
  struct Event {
    std::string user;
    std::string text;
    std::string channel;  ///< default: "D" + user (the DM with that user)
    std::string channel_type = "im";
    std::string subtype;  ///< e.g. message_changed, bot_message, file_share
    std::string bot_id;
    std::vector<std::string> file_ids;  ///< files added with putFile()
    int deliveries = 1;                 ///< >1: resent as retries even when acked (lost ack)
  };

  struct Posted {
    std::string channel;
    std::string ts;
    std::string text;
    std::vector<std::string> edits;  ///< texts of chat.update calls, in order
    bool has_blocks = false;
  };

  struct Stats {
    int connections_opened = 0;  ///< successful apps.connections.open calls
    int sockets_accepted = 0;
    int live_sockets = 0;
    int max_live_sockets = 0;  ///< >1: a new socket opened before the old one closed
    int acks = 0;
    int deliveries = 0;  ///< envelope frames sent, retries included
    std::vector<std::string> unacked;
    std::map<std::string, int> calls;  ///< Web API calls per method
  };

  FakeSlack();
  explicit FakeSlack(Options options);
  ~FakeSlack();
  FakeSlack(const FakeSlack&) = delete;
  FakeSlack& operator=(const FakeSlack&) = delete;

  int port() const;
  /// http://127.0.0.1:<port>/api — the value for SLACK_API_BASE.
  std::string apiBase() const;
  const Options& options() const;

  /// Queues an events_api envelope; it goes out on the newest socket (or when one opens).
  /// Returns the event_id.
  std::string enqueue(const Event& event);
  /// Sends {"type":"disconnect","reason":reason} on the newest socket. For refresh_requested
  /// and warning the old socket is closed once a newer one has said hello (or after 10 s);
  /// for link_disabled it is closed at once.
  void disconnect(const std::string& reason);
  /// Drops the newest socket without a close frame (a network fault).
  void dropSocket();
  /// The next `count` calls of method fail: http_status 429 (with Retry-After seconds and
  /// ok:false ratelimited) or 200 with ok:false and error.
  void scriptError(const std::string& method, int http_status, const std::string& error,
                   int retry_after_seconds = 1, int count = 1);
  /// Makes a private file available at url_private for message events.
  void putFile(const std::string& id, const std::string& mimetype, const std::string& bytes);

  std::vector<Posted> messages() const;
  Stats stats() const;
  /// Polls predicate until it holds or timeout passes; returns its last value.
  static bool waitFor(const std::function<bool()>& predicate,
                      std::chrono::milliseconds timeout = std::chrono::seconds(20));

  class Impl;

 private:
  std::unique_ptr<Impl> impl_;
};

}  // namespace gantry::fakes
