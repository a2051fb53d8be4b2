#include "slack_socket.h"

#include <Poco/Buffer.h>
#include <Poco/Net/HTTPClientSession.h>
#include <Poco/Net/HTTPRequest.h>
#include <Poco/Net/HTTPResponse.h>
#include <Poco/Net/NetException.h>
#include <Poco/URI.h>

#include "slack_web.h"

namespace gantry::slack {
namespace {

using Poco::Net::WebSocket;
using std::chrono::seconds;

constexpr Poco::Timespan::TimeDiff kPollMicros = 500'000;  // 0.5 s
constexpr int kMaxPayload = 16 * 1024 * 1024;
constexpr int kPong = int{WebSocket::FRAME_FLAG_FIN} | int{WebSocket::FRAME_OP_PONG};
constexpr int kPing = int{WebSocket::FRAME_FLAG_FIN} | int{WebSocket::FRAME_OP_PING};
// Slack pings every few seconds; silence this long means the link is gone.
constexpr auto kPingAfter = seconds(30);
constexpr auto kDeadAfter = seconds(90);

}  // namespace

Result<std::unique_ptr<SocketConnection>> SocketConnection::open(const std::string& url,
                                                                 const Poco::Net::Context::Ptr& tls,
                                                                 SocketListener& listener, int id) {
  try {
    auto session = openSession(url, tls);
    session->setTimeout(Poco::Timespan(10, 0));  // a stuck handshake must not delay stop()
    Poco::Net::HTTPRequest request(Poco::Net::HTTPRequest::HTTP_GET, Poco::URI(url).getPathEtc(),
                                   Poco::Net::HTTPMessage::HTTP_1_1);
    Poco::Net::HTTPResponse response;
    WebSocket socket(*session, request, response);
    socket.setMaxPayloadSize(kMaxPayload);
    socket.setReceiveTimeout(Poco::Timespan(30, 0));
    socket.setSendTimeout(Poco::Timespan(10, 0));
    std::unique_ptr<SocketConnection> connection(new SocketConnection(socket, listener, id));
    connection->reader_ = std::thread([raw = connection.get()] { raw->readLoop(); });
    return connection;
  } catch (const Poco::Exception& e) {
    return Status::retry("slack: Socket Mode connect: " + e.displayText());
  }
}

SocketConnection::SocketConnection(const Poco::Net::WebSocket& socket, SocketListener& listener,
                                   int id)
    : socket_(socket),  // a Poco socket is a shared handle: the copy shares the connection
      listener_(listener),
      id_(id),
      last_frame_(std::chrono::steady_clock::now()) {}

SocketConnection::~SocketConnection() { close(); }

void SocketConnection::close() {
  closing_ = true;
  if (reader_.joinable()) reader_.join();
}

void SocketConnection::readLoop() {
  std::string why;
  try {
    why = readFrames();
  } catch (const Poco::Exception& e) {
    why = e.displayText();
  } catch (const std::exception& e) {
    why = e.what();
  }
  try {
    socket_.close();
  } catch (const Poco::Exception&) {
    // Already gone; nothing left to release.
  }
  finished_ = true;
  listener_.onClosed(*this, why);
}

// Reads frames until the peer closes, the link goes silent, or close() is called; returns
// why it stopped.
std::string SocketConnection::readFrames() {
  Poco::Buffer<char> buffer(0);
  std::string message;
  std::string why;
  while (!closing_) {
    if (socket_.available() <= 0 &&
        !socket_.poll(Poco::Timespan(kPollMicros), Poco::Net::Socket::SELECT_READ)) {
      if (!keepAlive(&why)) return why;
      continue;
    }
    int flags = 0;
    buffer.resize(0);
    int n = socket_.receiveFrame(buffer, flags);
    if (n == 0 && flags == 0) return "peer closed the connection";
    std::string_view payload(buffer.begin(), static_cast<std::size_t>(n));
    if (!handleFrame(flags, payload, message, &why)) return why;
  }
  socket_.shutdown(WebSocket::WS_NORMAL_CLOSE, "client closing");
  return "closed by the client";
}

bool SocketConnection::handleFrame(int flags, std::string_view payload, std::string& message,
                                   std::string* why) {
  last_frame_ = std::chrono::steady_clock::now();
  ping_sent_ = false;
  switch (flags & WebSocket::FRAME_OP_BITMASK) {
    case WebSocket::FRAME_OP_PING:
      socket_.sendFrame(payload.data(), static_cast<int>(payload.size()), kPong);
      return true;
    case WebSocket::FRAME_OP_CLOSE:
      socket_.shutdown();
      *why = "peer sent close";
      return false;
    case WebSocket::FRAME_OP_PONG: return true;
    default: break;
  }
  message.append(payload);
  if ((flags & WebSocket::FRAME_FLAG_FIN) == 0) return true;  // more fragments follow
  handleMessage(message);
  message.clear();
  return true;
}

void SocketConnection::handleMessage(const std::string& text) {
  auto envelope = parseEnvelope(text);
  if (!envelope.isOk()) return;
  // Acknowledge before anything else: Slack redelivers what is not acked within 3 s.
  if (!envelope->envelope_id.empty()) sendText(ackFrame(envelope->envelope_id));
  listener_.onEnvelope(*this, std::move(envelope.value()));
}

bool SocketConnection::keepAlive(std::string* why) {
  auto idle = std::chrono::steady_clock::now() - last_frame_;
  if (idle > kDeadAfter) {
    *why = "no frames for 90 s";
    return false;
  }
  if (idle > kPingAfter && !ping_sent_) {
    socket_.sendFrame("", 0, kPing);
    ping_sent_ = true;
  }
  return true;
}

void SocketConnection::sendText(const std::string& text) {
  socket_.sendFrame(text.data(), static_cast<int>(text.size()), WebSocket::FRAME_TEXT);
}

}  // namespace gantry::slack
