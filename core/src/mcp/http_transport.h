#pragma once
/// The Streamable HTTP transport: every message is a POST to the server's endpoint; a
/// request's answer comes back as a JSON body or an SSE stream on that POST. Keeps the
/// Mcp-Session-Id, sends MCP-Protocol-Version after initialize, re-initialises once when
/// the session expired (404), DELETEs the session on close.

#include <Poco/Net/HTTPClientSession.h>
#include <Poco/Net/HTTPRequest.h>
#include <Poco/URI.h>

#include <list>
#include <map>
#include <memory>
#include <mutex>
#include <thread>

#include "mcp/transport.h"

namespace gantry::mcp {

struct HttpOptions {
  std::string server;  ///< manifest name, for logs
  std::string url;
  std::map<std::string, std::string> headers;  ///< resolved manifest headers
  std::size_t body_cap = 4 * 1024 * 1024;
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
  Status roundTrip(Poco::Net::HTTPClientSession& session, Poco::Net::HTTPRequest& request,
                   Exchange& exchange, bool expiry_handled, int* http_status);
  Status reinitialise(std::chrono::milliseconds timeout);
  std::unique_ptr<Poco::Net::HTTPClientSession> makeSession(std::chrono::milliseconds timeout);
  void readBody(std::istream& body, const std::string& content_type, Exchange& exchange);
  void reapFinished();

  HttpOptions options_;
  Poco::URI uri_;
  TransportHandler* handler_ = nullptr;
  mutable std::mutex mutex_;
  std::string session_id_;
  std::string protocol_version_;
  std::string init_request_;
  std::string init_notification_;
  std::map<std::int64_t, Poco::Net::HTTPClientSession*> in_flight_;
  struct Worker {
    std::thread thread;
    std::shared_ptr<std::atomic<bool>> done;
  };
  std::list<Worker> workers_;
  bool closed_ = false;
};

}  // namespace gantry::mcp
