#include "mcp/http_transport.h"

#include <Poco/Exception.h>
#include <Poco/Net/Context.h>
#include <Poco/Net/HTTPRequest.h>
#include <Poco/Net/HTTPResponse.h>
#include <Poco/Net/HTTPSClientSession.h>

#include <atomic>

#include "gantry/net/low_latency_session.h"
#include "log/log.h"
#include "mcp/jsonrpc.h"

namespace gantry::mcp {

using Poco::Net::HTTPRequest;
using Poco::Net::HTTPResponse;

struct HttpTransport::Exchange {
  std::string text;
  std::optional<std::int64_t> id;
  std::chrono::milliseconds timeout;
  bool forward = true;  ///< false while replaying initialize after a 404
};

namespace {

constexpr std::chrono::milliseconds kSlack{5000};

bool startsWith(const std::string& text, const char* prefix) { return text.rfind(prefix, 0) == 0; }

/// Reads at most cap+1 bytes so an oversize body is detected without holding it all.
std::string readCapped(std::istream& in, std::size_t cap) {
  std::string body;
  std::string chunk(64 * 1024, '\0');
  while (in && body.size() <= cap) {
    in.read(chunk.data(), static_cast<std::streamsize>(chunk.size()));
    body.append(chunk.data(), static_cast<std::size_t>(in.gcount()));
  }
  return body;
}

}  // namespace

HttpTransport::HttpTransport(HttpOptions options) : options_(std::move(options)) {}

HttpTransport::~HttpTransport() { close(); }

Status HttpTransport::open(TransportHandler* handler) {
  handler_ = handler;
  try {
    uri_ = Poco::URI(options_.url);
  } catch (const Poco::Exception& e) {
    return Status::error("bad url \"" + options_.url + "\": " + e.displayText());
  }
  return Status::ok();
}

std::string HttpTransport::sessionId() const {
  std::lock_guard lock(mutex_);
  return session_id_;
}

void HttpTransport::initialized(const std::string& version, const std::string& init_request,
                                const std::string& init_notification) {
  std::lock_guard lock(mutex_);
  protocol_version_ = version;
  init_request_ = init_request;
  init_notification_ = init_notification;
}

Status HttpTransport::send(const std::string& text, std::optional<std::int64_t> request_id,
                           std::chrono::milliseconds timeout) {
  if (!request_id) {
    // Notifications and replies go out in order on the caller's thread: initialized must
    // reach the server before the requests that follow it.
    {
      std::lock_guard lock(mutex_);
      if (closed_) return Status::retry("the HTTP transport is closed");
    }
    Exchange exchange{text, std::nullopt, timeout, true};
    return this->exchange(exchange, true);
  }
  std::lock_guard lock(mutex_);
  if (closed_) return Status::retry("the HTTP transport is closed");
  reapFinished();
  auto done = std::make_shared<std::atomic<bool>>(false);
  workers_.push_back({std::thread([this, text, request_id, timeout, done] {
                        post(text, request_id, timeout);
                        *done = true;
                      }),
                      done});
  return Status::ok();
}

void HttpTransport::reapFinished() {
  for (auto it = workers_.begin(); it != workers_.end();) {
    if (!*it->done) {
      ++it;
      continue;
    }
    it->thread.join();
    it = workers_.erase(it);
  }
}

void HttpTransport::post(std::string text, std::optional<std::int64_t> id,
                         std::chrono::milliseconds timeout) {
  Exchange exchange{std::move(text), id, timeout, true};
  auto status = this->exchange(exchange, true);
  if (status.isOk()) return;
  if (id) {
    handler_->onRequestFailed(*id, status);
  } else {
    log::warn("mcp_http_notification_failed",
              {{"server", options_.server}, {"error", status.message()}});
  }
}

std::unique_ptr<Poco::Net::HTTPClientSession> HttpTransport::makeSession(
    std::chrono::milliseconds timeout) {
  std::unique_ptr<Poco::Net::HTTPClientSession> session;
  if (uri_.getScheme() == "https") {
    Poco::Net::Context::Ptr context =
        new Poco::Net::Context(Poco::Net::Context::TLS_CLIENT_USE, "", "", "",
                               Poco::Net::Context::VERIFY_RELAXED, 9, true);
    session = net::makeLowLatencySession<Poco::Net::HTTPSClientSession>(uri_.getHost(),
                                                                        uri_.getPort(), context);
  } else {
    session =
        net::makeLowLatencySession<Poco::Net::HTTPClientSession>(uri_.getHost(), uri_.getPort());
  }
  const auto limit = std::chrono::duration_cast<std::chrono::microseconds>(timeout + kSlack);
  session->setTimeout(Poco::Timespan(limit.count()));
  return session;
}

bool HttpTransport::prepare(HTTPRequest& request, const Exchange& exchange,
                            Poco::Net::HTTPClientSession* session) {
  request.setContentType("application/json");
  request.set("Accept", "application/json, text/event-stream");
  request.setContentLength(static_cast<std::streamsize>(exchange.text.size()));
  std::lock_guard lock(mutex_);
  for (const auto& [name, value] : options_.headers) request.set(name, value);
  if (!session_id_.empty()) request.set("Mcp-Session-Id", session_id_);
  if (!protocol_version_.empty()) request.set("MCP-Protocol-Version", protocol_version_);
  if (exchange.id) in_flight_[*exchange.id] = session;
  return !session_id_.empty();
}

Status HttpTransport::roundTrip(Poco::Net::HTTPClientSession& session, HTTPRequest& request,
                                Exchange& exchange, bool expiry_handled, int* http_status) {
  try {
    session.sendRequest(request) << exchange.text;
    HTTPResponse response;
    auto& body = session.receiveResponse(response);
    *http_status = response.getStatus();
    if (response.has("Mcp-Session-Id")) {
      std::lock_guard lock(mutex_);
      session_id_ = response.get("Mcp-Session-Id");
    }
    if (*http_status == 200) readBody(body, response.getContentType(), exchange);
    if (*http_status == 200 || *http_status == 202 || (*http_status == 404 && expiry_handled)) {
      return Status::ok();
    }
    return Status::error("HTTP " + std::to_string(*http_status) + " " + response.getReason() +
                         ": " + readCapped(body, 300).substr(0, 300) +
                         " (check the url and headers in the manifest)");
  } catch (const Poco::Exception& e) {
    return Status::retry("POST " + options_.url + " failed: " + e.displayText());
  }
}

Status HttpTransport::exchange(Exchange& exchange, bool allow_reinit) {
  auto session = makeSession(exchange.timeout);
  HTTPRequest request(HTTPRequest::HTTP_POST, uri_.getPathAndQuery(), HTTPRequest::HTTP_1_1);
  const bool expiry_handled = prepare(request, exchange, session.get()) && allow_reinit;
  int http_status = 0;
  auto status = roundTrip(*session, request, exchange, expiry_handled, &http_status);
  {
    std::lock_guard lock(mutex_);
    if (exchange.id) in_flight_.erase(*exchange.id);
  }
  if (http_status != 404 || !expiry_handled) return status;
  // The session expired (the server restarted or dropped it): start a new one, retry once.
  log::warn("mcp_session_expired", {{"server", options_.server}});
  auto again = reinitialise(exchange.timeout);
  if (!again.isOk()) return again;
  return this->exchange(exchange, false);
}

Status HttpTransport::reinitialise(std::chrono::milliseconds timeout) {
  std::string init_request, init_notification;
  {
    std::lock_guard lock(mutex_);
    session_id_.clear();
    init_request = init_request_;
    init_notification = init_notification_;
  }
  if (init_request.empty()) return Status::retry("the session expired before initialize finished");
  Exchange init{init_request, std::nullopt, timeout, false};
  auto status = exchange(init, false);
  if (!status.isOk()) return status;
  Exchange note{init_notification, std::nullopt, timeout, false};
  return exchange(note, false);
}

void HttpTransport::readBody(std::istream& body, const std::string& content_type,
                             Exchange& exchange) {
  if (!exchange.forward) {
    readCapped(body, options_.body_cap);
    return;
  }
  if (startsWith(content_type, "text/event-stream")) {
    jsonrpc::SseReader reader([&](std::string_view data) {
      if (data.size() > options_.body_cap) return handler_->onOversize(exchange.id, data.size());
      handler_->onMessage(data);
    });
    std::string chunk(16 * 1024, '\0');
    while (body) {
      body.read(chunk.data(), static_cast<std::streamsize>(chunk.size()));
      reader.feed(std::string_view(chunk.data(), static_cast<std::size_t>(body.gcount())));
    }
    reader.finish();
    return;
  }
  auto text = readCapped(body, options_.body_cap);
  if (text.size() > options_.body_cap) return handler_->onOversize(exchange.id, text.size());
  if (!text.empty()) handler_->onMessage(text);
}

void HttpTransport::abandon(std::int64_t request_id) {
  std::lock_guard lock(mutex_);
  auto found = in_flight_.find(request_id);
  if (found != in_flight_.end()) found->second->abort();
}

void HttpTransport::close() {
  std::list<Worker> workers;
  std::string session_id, version;
  {
    std::lock_guard lock(mutex_);
    if (closed_) return;
    version = protocol_version_;
    closed_ = true;
    for (auto& [id, session] : in_flight_) session->abort();
    workers.swap(workers_);
    session_id = session_id_;
  }
  for (auto& worker : workers) worker.thread.join();
  if (session_id.empty() || uri_.empty()) return;
  try {
    auto session = makeSession(std::chrono::milliseconds(0));
    HTTPRequest request(HTTPRequest::HTTP_DELETE, uri_.getPathAndQuery(), HTTPRequest::HTTP_1_1);
    for (const auto& [name, value] : options_.headers) request.set(name, value);
    request.set("Mcp-Session-Id", session_id);
    if (!version.empty()) request.set("MCP-Protocol-Version", version);
    session->sendRequest(request);
    HTTPResponse response;
    session->receiveResponse(response);
  } catch (const Poco::Exception& e) {
    log::debug("mcp_http_delete_failed", {{"server", options_.server}, {"error", e.displayText()}});
  }
}

}  // namespace gantry::mcp
