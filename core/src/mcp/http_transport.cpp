#include "mcp/http_transport.h"

#include <Poco/Exception.h>
#include <Poco/Net/Context.h>
#include <Poco/Net/HTTPRequest.h>
#include <Poco/Net/HTTPResponse.h>
#include <Poco/Net/HTTPSClientSession.h>

#include <atomic>
#include <limits>

#include "gantry/net/localhost.h"
#include "gantry/net/low_latency_session.h"
#include "gantry/net/wake_reader.h"
#include "log/log.h"
#include "mcp/jsonrpc.h"
#include "mcp/sse_reader.h"

namespace gantry::mcp {

using Poco::Net::HTTPRequest;
using Poco::Net::HTTPResponse;
using std::chrono::milliseconds;

struct HttpTransport::Exchange {
  Exchange(std::string message, std::optional<std::int64_t> request_id, milliseconds limit,
           bool deliver = true)
      : text(std::move(message)), id(request_id), timeout(limit), forward(deliver) {}

  std::string text;
  std::optional<std::int64_t> id;
  milliseconds timeout;
  bool forward = true;    ///< false while replaying initialize after a 404
  bool streamed = false;  ///< the answer was an SSE stream
  bool answered = false;  ///< the response to id has been read
  std::string last_event_id;
  milliseconds retry{1000};  ///< the server's retry: delay, until it sends one
};

namespace {

constexpr milliseconds kSlack{5000};
constexpr milliseconds kConnectLimit{30000};
/// in_flight_ key of the standing GET stream (request ids are positive).
constexpr std::int64_t kListenerKey = std::numeric_limits<std::int64_t>::min();
/// A standing stream with no traffic for this long is reopened (with Last-Event-ID).
constexpr milliseconds kListenIdle{10 * 60 * 1000};
constexpr milliseconds kListenBackoffMax{30000};

bool startsWith(const std::string& text, const char* prefix) { return text.rfind(prefix, 0) == 0; }

/// Reads at most cap+1 bytes so an oversize body is detected without holding it all.
std::string readCapped(std::istream& in, std::size_t cap) {
  std::string body;
  std::string chunk(std::size_t{64} * 1024, '\0');
  while (in && body.size() <= cap) {
    in.read(chunk.data(), static_cast<std::streamsize>(chunk.size()));
    body.append(chunk.data(), static_cast<std::size_t>(in.gcount()));
  }
  return body;
}

/// A status that says the server will not give us the stream (not worth retrying).
bool refusesStreams(int http_status) {
  return http_status >= 400 && http_status < 500 && http_status != 404 && http_status != 429;
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

// A URL without a path (http://host:port) is the root: the request line needs a target.
std::string HttpTransport::target() const {
  auto path = uri_.getPathAndQuery();
  return path.empty() || path.front() != '/' ? "/" + path : path;
}

// "localhost" is loopback by definition (RFC 6761), but resolving it needs an /etc/hosts that
// a minimal system may lack; plain HTTP connects to 127.0.0.1 instead (HTTPS keeps the name
// for certificate checks). The Host header still carries the name.
std::string HttpTransport::connectHost() const {
  const auto& host = uri_.getHost();
  return net::isLocalhostName(host) && uri_.getScheme() == "http" ? "127.0.0.1" : host;
}

void HttpTransport::initialized(const std::string& version, const std::string& init_request,
                                const std::string& init_notification) {
  std::lock_guard lock(mutex_);
  protocol_version_ = version;
  init_request_ = init_request;
  init_notification_ = init_notification;
}

Status HttpTransport::send(const std::string& text, std::optional<std::int64_t> request_id,
                           milliseconds timeout) {
  if (!request_id) {
    // Notifications and replies go out in order on the caller's thread: initialized must
    // reach the server before the requests that follow it.
    {
      std::lock_guard lock(mutex_);
      if (closed_) return Status::retry("the HTTP transport is closed");
    }
    Exchange exchange{text, std::nullopt, timeout};
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

void HttpTransport::post(std::string text, std::optional<std::int64_t> id, milliseconds timeout) {
  Exchange exchange{std::move(text), id, timeout};
  auto status = this->exchange(exchange, true);
  if (status.isOk()) return;
  if (id) {
    handler_->onRequestFailed(*id, status);
  } else {
    log::warn("mcp_http_notification_failed",
              {{"server", options_.server}, {"error", status.message()}});
  }
}

std::unique_ptr<Poco::Net::HTTPClientSession> HttpTransport::makeSession(milliseconds timeout) {
  std::unique_ptr<Poco::Net::HTTPClientSession> session;
  if (uri_.getScheme() == "https") {
    Poco::Net::Context::Ptr context =
        new Poco::Net::Context(Poco::Net::Context::TLS_CLIENT_USE, "", "", "",
                               Poco::Net::Context::VERIFY_RELAXED, 9, true);
    session = net::makeLowLatencySession<Poco::Net::HTTPSClientSession>(uri_.getHost(),
                                                                        uri_.getPort(), context);
  } else {
    session =
        net::makeLowLatencySession<Poco::Net::HTTPClientSession>(connectHost(), uri_.getPort());
  }
  const auto limit = std::chrono::duration_cast<std::chrono::microseconds>(timeout + kSlack);
  const auto connect = std::min<std::chrono::microseconds>(limit, kConnectLimit);
  session->setTimeout(Poco::Timespan(connect.count()), Poco::Timespan(limit.count()),
                      Poco::Timespan(limit.count()));
  return session;
}

void HttpTransport::track(std::int64_t key, Poco::Net::HTTPClientSession* session) {
  std::lock_guard lock(mutex_);
  if (session) {
    in_flight_[key] = session;
  } else {
    in_flight_.erase(key);
  }
}

// Callers hold mutex_.
void HttpTransport::setSessionHeaders(HTTPRequest& request) const {
  for (const auto& [name, value] : options_.headers) request.set(name, value);
  if (!session_id_.empty()) request.set("Mcp-Session-Id", session_id_);
  if (!protocol_version_.empty()) request.set("MCP-Protocol-Version", protocol_version_);
}

bool HttpTransport::prepare(HTTPRequest& request, const Exchange& exchange,
                            Poco::Net::HTTPClientSession* session) {
  request.setContentType("application/json");
  request.set("Accept", "application/json, text/event-stream");
  request.setContentLength(static_cast<std::streamsize>(exchange.text.size()));
  std::lock_guard lock(mutex_);
  setSessionHeaders(request);
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
  HTTPRequest request(HTTPRequest::HTTP_POST, target(), HTTPRequest::HTTP_1_1);
  request.setHost(uri_.getHost(), uri_.getPort());
  const bool expiry_handled = prepare(request, exchange, session.get()) && allow_reinit;
  int http_status = 0;
  auto status = roundTrip(*session, request, exchange, expiry_handled, &http_status);
  if (exchange.id) track(*exchange.id, nullptr);
  if (status.isOk() && exchange.streamed && exchange.id && !exchange.answered) {
    return resume(exchange);
  }
  if (http_status != 404 || !expiry_handled) return status;
  // The session expired (the server restarted or dropped it): start a new one, retry once.
  log::info("mcp_session_expired", {{"server", options_.server}});
  auto again = reinitialise(exchange.timeout);
  if (!again.isOk()) return again;
  return this->exchange(exchange, false);
}

Status HttpTransport::reinitialise(milliseconds timeout) {
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
    exchange.streamed = true;
    return readEvents(body, exchange);
  }
  auto text = readCapped(body, options_.body_cap);
  if (text.size() > options_.body_cap) return handler_->onOversize(exchange.id, text.size());
  if (text.empty()) return;
  exchange.answered = exchange.id.has_value();
  handler_->onMessage(text);
}

// Reads until the server ends the stream (or the connection breaks, which resumes the same
// way) or the answer arrived: a resumed GET stream may stay open for later messages.
void HttpTransport::readEvents(std::istream& body, Exchange& exchange) {
  SseReader reader(
      options_.body_cap, [&](std::string_view data) { deliver(data, exchange); },
      [&](std::string_view head, std::string_view tail, std::size_t length) {
        auto id = jsonrpc::findResponseId(head);
        if (!id) id = jsonrpc::findResponseId(tail);
        if (!id) id = exchange.id;
        exchange.answered = exchange.answered || (exchange.id && id == exchange.id);
        handler_->onOversize(id, length);
      });
  std::string chunk(std::size_t{16} * 1024, '\0');
  while (!exchange.answered && body.peek() != std::char_traits<char>::eof()) {
    const auto n = body.readsome(chunk.data(), static_cast<std::streamsize>(chunk.size()));
    reader.feed(std::string_view(chunk.data(), static_cast<std::size_t>(n)));
  }
  if (!exchange.answered) reader.finish();
  if (!reader.lastEventId().empty()) exchange.last_event_id = reader.lastEventId();
  if (reader.retry()) exchange.retry = *reader.retry();
}

void HttpTransport::deliver(std::string_view data, Exchange& exchange) {
  if (exchange.id && jsonrpc::responseId(data) == exchange.id) exchange.answered = true;
  handler_->onMessage(data);
}

// The stream closed before the answer: the server keeps the answer for a GET that names
// the last event we saw, after waiting the delay it asked for (SEP-1699).
Status HttpTransport::resume(Exchange& exchange) {
  const auto deadline = std::chrono::steady_clock::now() + exchange.timeout;
  const auto id = *exchange.id;
  {
    std::lock_guard lock(mutex_);
    resuming_.insert(id);
  }
  Status status = Status::ok();
  while (!exchange.answered && status.isOk()) {
    if (exchange.last_event_id.empty()) {
      status = Status::retry(
          "the server closed the response stream before answering, with no "
          "event id to resume from");
    } else if (!pause(exchange.retry, id)) {
      status = Status::cancelled("the call ended while waiting to resume its stream");
    } else if (std::chrono::steady_clock::now() >= deadline) {
      status = Status::retry("no answer on the resumed stream within the call's timeout");
    } else {
      int http_status = 0;
      exchange.timeout =
          std::chrono::duration_cast<milliseconds>(deadline - std::chrono::steady_clock::now());
      status = openStream(exchange, id, &http_status);
    }
  }
  std::lock_guard lock(mutex_);
  resuming_.erase(id);
  abandoned_.erase(id);
  return status;
}

Status HttpTransport::openStream(Exchange& exchange, std::int64_t key, int* http_status) {
  auto session = makeSession(exchange.timeout);
  HTTPRequest request(HTTPRequest::HTTP_GET, target(), HTTPRequest::HTTP_1_1);
  request.setHost(uri_.getHost(), uri_.getPort());
  request.set("Accept", "text/event-stream");
  if (!exchange.last_event_id.empty()) request.set("Last-Event-ID", exchange.last_event_id);
  {
    std::lock_guard lock(mutex_);
    if (closed_) return Status::cancelled("the HTTP transport is closed");
    setSessionHeaders(request);
    in_flight_[key] = session.get();
  }
  Status status = Status::ok();
  try {
    session->sendRequest(request);
    HTTPResponse response;
    auto& body = session->receiveResponse(response);
    *http_status = response.getStatus();
    if (*http_status == 200 && startsWith(response.getContentType(), "text/event-stream")) {
      readEvents(body, exchange);
    } else {
      status = Status::retry("GET " + options_.url + ": HTTP " + std::to_string(*http_status) +
                             " " + response.getReason() + "; the server does not offer a stream");
    }
  } catch (const Poco::Exception& e) {
    status = Status::retry("GET " + options_.url + " failed: " + e.displayText());
  }
  track(key, nullptr);
  return status;
}

void HttpTransport::sessionReady() {
  std::lock_guard lock(mutex_);
  if (closed_ || listener_.joinable()) return;
  listener_ = std::thread([this] { listen(); });
}

// The optional standing GET stream. A server without one answers 405 (or another 4xx):
// then there is nothing to listen to. Reconnects after the server's retry delay when a
// stream ends, with backoff when the server cannot be reached.
void HttpTransport::listen() {
  Exchange stream{"", std::nullopt, kListenIdle};
  milliseconds backoff{1000};
  for (;;) {
    int http_status = 0;
    auto status = openStream(stream, kListenerKey, &http_status);
    if (refusesStreams(http_status)) {
      log::debug("mcp_http_no_get_stream",
                 {{"server", options_.server}, {"status", std::to_string(http_status)}});
      return;
    }
    backoff = http_status == 200 ? stream.retry : std::min(backoff * 2, kListenBackoffMax);
    if (!status.isOk()) {
      log::debug("mcp_http_get_stream_ended",
                 {{"server", options_.server}, {"error", status.message()}});
    }
    if (!pause(backoff, kListenerKey)) return;
  }
}

bool HttpTransport::pause(milliseconds delay, std::int64_t key) {
  std::unique_lock lock(mutex_);
  return !wake_.wait_for(lock, delay, [&] { return closed_ || abandoned_.count(key) > 0; });
}

void HttpTransport::abandon(std::int64_t request_id) {
  std::lock_guard lock(mutex_);
  if (resuming_.count(request_id) > 0) abandoned_.insert(request_id);
  auto found = in_flight_.find(request_id);
  if (found != in_flight_.end()) net::wakeReader(found->second->socket());
  wake_.notify_all();
}

void HttpTransport::close() {
  std::list<Worker> workers;
  std::thread listener;
  std::string session_id, version;
  {
    std::lock_guard lock(mutex_);
    if (closed_) return;
    version = protocol_version_;
    closed_ = true;
    for (auto& [id, session] : in_flight_) net::wakeReader(session->socket());
    workers.swap(workers_);
    listener.swap(listener_);
    session_id = session_id_;
  }
  wake_.notify_all();
  for (auto& worker : workers) worker.thread.join();
  if (listener.joinable()) listener.join();
  if (session_id.empty() || uri_.empty()) return;
  try {
    auto session = makeSession(milliseconds(0));
    HTTPRequest request(HTTPRequest::HTTP_DELETE, target(), HTTPRequest::HTTP_1_1);
    request.setHost(uri_.getHost(), uri_.getPort());
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
