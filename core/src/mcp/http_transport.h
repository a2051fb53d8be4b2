#pragma once
/// The Streamable HTTP transport: every message is a POST to the server's endpoint; a
/// request's answer comes back as a JSON body or an SSE stream on that POST. Keeps the
/// Mcp-Session-Id, sends MCP-Protocol-Version after initialize, re-initialises once when
/// the session expired (404), DELETEs the session on close. A response stream that ends
/// before the answer is resumed with GET and Last-Event-ID after the server's retry delay;
/// a standing GET stream carries server-initiated messages when the server offers one.

#include <Poco/Net/HTTPClientSession.h>
#include <Poco/Net/HTTPRequest.h>
#include <Poco/URI.h>

#include <condition_variable>
#include <list>
#include <map>
#include <memory>
#include <mutex>
#include <set>
#include <thread>

#include "mcp/transport.h"

namespace gantry::mcp {

struct HttpOptions {
  std::string server;  ///< manifest name, for logs
  std::string url;
  std::map<std::string, std::string> headers;           ///< resolved manifest headers
  std::size_t body_cap = std::size_t{4} * 1024 * 1024;  ///< per JSON body and per SSE event
};

class HttpTransport final : public Transport {
 public:
  explicit HttpTransport(HttpOptions options);
  ~HttpTransport() override;

  Status open(TransportHandler* handler) override;
  Status send(const std::string& text, std::optional<std::int64_t> request_id,
              std::chrono::milliseconds timeout) override;
  void abandon(std::int64_t request_id) override;
  void initialized(const std::string& version, const std::string& init_request,
                   const std::string& init_notification) override;
  void sessionReady() override;
  void close() override;
  const char* kind() const override { return "http"; }

  /// The current session id (empty when the server uses none). Thread-safe.
  std::string sessionId() const;

 private:
  struct Exchange;
  void post(std::string text, std::optional<std::int64_t> id, std::chrono::milliseconds timeout);
  Status exchange(Exchange& exchange, bool allow_reinit);
  /// Sets headers and registers the POST for abandon(); true when a session id was sent.
  bool prepare(Poco::Net::HTTPRequest& request, const Exchange& exchange,
               Poco::Net::HTTPClientSession* session);
  void setSessionHeaders(Poco::Net::HTTPRequest& request) const;
  Status roundTrip(Poco::Net::HTTPClientSession& session, Poco::Net::HTTPRequest& request,
                   Exchange& exchange, bool expiry_handled, int* http_status);
  Status reinitialise(std::chrono::milliseconds timeout);
  Status resume(Exchange& exchange);
  /// GETs an SSE stream (resuming after exchange.last_event_id if set) and reads it until
  /// it ends or carries the answer. `key` registers it for abandon() and close().
  Status openStream(Exchange& exchange, std::int64_t key, int* http_status);
  void listen();
  /// Waits `delay`; false when close() or abandon(key) interrupted the wait.
  bool pause(std::chrono::milliseconds delay, std::int64_t key);
  std::unique_ptr<Poco::Net::HTTPClientSession> makeSession(std::chrono::milliseconds timeout);
  void readBody(std::istream& body, const std::string& content_type, Exchange& exchange);
  void readEvents(std::istream& body, Exchange& exchange);
  void deliver(std::string_view data, Exchange& exchange);
  void track(std::int64_t key, Poco::Net::HTTPClientSession* session);
  void reapFinished();
  std::string target() const;
  std::string connectHost() const;

  HttpOptions options_;
  Poco::URI uri_;
  TransportHandler* handler_ = nullptr;
  mutable std::mutex mutex_;
  std::condition_variable wake_;  ///< close() and abandon() interrupt retry waits
  std::string session_id_;
  std::string protocol_version_;
  std::string init_request_;
  std::string init_notification_;
  std::map<std::int64_t, Poco::Net::HTTPClientSession*> in_flight_;
  std::set<std::int64_t> resuming_;   ///< requests between a closed stream and its resumption
  std::set<std::int64_t> abandoned_;  ///< of those, the ones the client gave up on
  struct Worker {
    std::thread thread;
    std::shared_ptr<std::atomic<bool>> done;
  };
  std::list<Worker> workers_;
  std::thread listener_;
  bool closed_ = false;
};

}  // namespace gantry::mcp
