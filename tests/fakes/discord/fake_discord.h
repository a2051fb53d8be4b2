#pragma once
/// FakeDiscord: a loopback Discord Gateway (WebSocket) + REST API for tests, following the
/// public documentation: Hello, heartbeat ACKs, Identify -> READY, Resume -> replay of missed
/// dispatches + RESUMED, op 7 / op 9 / close codes on demand, 4004 for a wrong token, 4014
/// when the MESSAGE CONTENT intent is not enabled, per-bucket rate limits with 429s.
/// Also answers /control/... endpoints so tests in other processes can drive it.

#include <Poco/Net/HTTPServer.h>
#include <Poco/ThreadPool.h>

#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <deque>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

namespace Poco::Net {
class HTTPServerRequest;
class HTTPServerResponse;
class WebSocket;
}  // namespace Poco::Net

namespace gantry::testing {

class FakeDiscord {
 public:
  struct Options {
    std::string token = "fake-discord-token";
    std::string bot_user_id = "1000000000000000001";
    int heartbeat_interval_ms = 41250;
    bool message_content_intent_enabled = true;  ///< false: Identify with it closes 4014
    int bucket_limit = 50;                       ///< requests per route bucket and window
    double bucket_window_s = 1.0;
  };

  /// A MESSAGE_CREATE to dispatch. An empty guild_id makes it a DM.
  struct MessageSpec {
    std::string id;  ///< empty: a fresh snowflake
    std::string author_id;
    std::string author_name = "someone";
    std::string content;
    std::string channel_id = "2000000000000000002";
    std::string guild_id;
    bool bot = false;
    std::string attachment_url;  ///< one attachment when set
    std::string attachment_type = "image/png";
  };

  /// A message the bot created through REST.
  struct Sent {
    std::string id;
    std::string channel_id;
    std::string content;
    std::string body;  ///< the last raw JSON (payload_json for uploads)
    int edits = 0;
    bool upload = false;
  };

  struct Stats {
    int connections = 0;
    int identifies = 0;
    int resumes = 0;
    int heartbeats = 0;
    int acks = 0;
    int rate_limited = 0;       ///< 429s served
    int bucket_violations = 0;  ///< requests made while a bucket was exhausted
    int typing = 0;
    bool ready = false;  ///< a connection is attached to a live session
    std::vector<int> client_close_codes;
    std::vector<std::string> paths;  ///< "/gateway?v=10&encoding=json", "/resume?..."
    std::string last_identify;       ///< raw JSON of the last Identify
    std::string last_resume;
    std::int64_t last_heartbeat_seq = -1;  ///< -1 for null
  };

  explicit FakeDiscord(Options options);
  FakeDiscord();
  ~FakeDiscord();
  FakeDiscord(const FakeDiscord&) = delete;
  FakeDiscord& operator=(const FakeDiscord&) = delete;

  std::uint16_t port() const;
  std::string apiBase() const;     ///< http://127.0.0.1:PORT/api/v10
  std::string gatewayUrl() const;  ///< ws://127.0.0.1:PORT/gateway

  /// Dispatches MESSAGE_CREATE in the current session (sent now, or replayed after Resume);
  /// returns the message id, "" when no session exists yet.
  std::string dispatch(const MessageSpec& spec);
  /// Sends op 7 Reconnect on the live connection.
  void reconnect();
  /// Sends op 1 (the gateway asking for an immediate heartbeat) on the live connection.
  void requestHeartbeat();
  /// Sends op 9 Invalid Session; not resumable also ends the session.
  void invalidSession(bool resumable);
  /// Closes the live connection with a close code.
  void closeWith(int code);
  /// While on, heartbeats are not acknowledged.
  void withholdAcks(bool on);
  /// The next count message requests get 429 with retry_after seconds.
  void rateLimitNext(int count, double retry_after, bool global = false);
  /// Serves bytes at /attachments/NAME (no auth, like the CDN); returns the URL.
  std::string addAttachment(const std::string& name, const std::string& bytes);

  Stats stats() const;
  std::vector<Sent> sent() const;
  /// Waits until pred() (called under the fake's lock) holds or timeout passes.
  bool waitUntil(const std::function<bool(const Stats&, const std::vector<Sent>&)>& pred,
                 std::chrono::milliseconds timeout = std::chrono::seconds(20)) const;

 private:
  class Factory;
  struct Session {
    std::int64_t seq = 0;
    std::vector<std::pair<std::int64_t, std::string>> log;  // seq -> payload
    bool valid = true;
  };
  struct Conn;
  enum class Action { kReconnect, kHeartbeat, kInvalidResumable, kInvalid, kClose };

  void handleGateway(Poco::Net::HTTPServerRequest& request,
                     Poco::Net::HTTPServerResponse& response);
  void serveGateway(Poco::Net::WebSocket& socket, Conn& conn);
  bool runActions(Poco::Net::WebSocket& socket, Conn& conn);
  void flushDispatches(Poco::Net::WebSocket& socket, Conn& conn);
  bool onClientText(Poco::Net::WebSocket& socket, Conn& conn, const std::string& text);
  bool onIdentify(Poco::Net::WebSocket& socket, Conn& conn, const std::string& text);
  bool onResume(Poco::Net::WebSocket& socket, Conn& conn, const std::string& text);
  std::string appendDispatch(Session& session, const std::string& type,
                             const std::string& data_json);
  std::string readyData(const std::string& session_id) const;

  void handleRest(Poco::Net::HTTPServerRequest& request, Poco::Net::HTTPServerResponse& response);
  void handleControl(Poco::Net::HTTPServerRequest& request,
                     Poco::Net::HTTPServerResponse& response);
  void handleAttachment(Poco::Net::HTTPServerRequest& request,
                        Poco::Net::HTTPServerResponse& response);
  bool rateLimit(const std::string& bucket, Poco::Net::HTTPServerResponse& response);
  void createMessage(const std::string& channel_id, Poco::Net::HTTPServerRequest& request,
                     Poco::Net::HTTPServerResponse& response);
  void editMessage(const std::string& channel_id, const std::string& message_id,
                   Poco::Net::HTTPServerRequest& request, Poco::Net::HTTPServerResponse& response);
  std::string messageJson(const Sent& message) const;
  void changed();

  Options options_;
  mutable std::mutex mutex_;
  mutable std::condition_variable changed_cv_;
  bool stopping_ = false;
  Stats stats_;
  std::vector<Sent> sent_;
  std::map<std::string, Session> sessions_;
  std::string current_session_;
  int live_conn_ = 0;
  std::map<int, std::deque<std::pair<Action, int>>> actions_;  // conn id -> pending actions
  bool withhold_acks_ = false;
  int scripted_429_ = 0;
  double scripted_retry_after_ = 0;
  bool scripted_global_ = false;
  struct Bucket {
    int used = 0;
    std::chrono::steady_clock::time_point reset{};
  };
  std::map<std::string, Bucket> buckets_;
  std::map<std::string, std::string> attachments_;
  std::uint64_t next_id_ = 1300000000000000000ULL;
  int next_session_ = 0;

  Poco::ThreadPool pool_{2, 64};
  std::unique_ptr<Poco::Net::HTTPServer> server_;
};

}  // namespace gantry::testing
