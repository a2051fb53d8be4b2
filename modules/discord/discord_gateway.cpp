#include "discord_gateway.h"

#include <Poco/Buffer.h>
#include <Poco/Exception.h>
#include <Poco/Net/HTTPRequest.h>
#include <Poco/Net/HTTPResponse.h>
#include <Poco/Net/WebSocket.h>
#include <Poco/URI.h>

#include <algorithm>

#include "discord_http.h"

namespace gantry::discord {
namespace {

using Poco::Net::WebSocket;
using std::chrono::milliseconds;

constexpr milliseconds kPollSlice{100};       // how often the loop looks at stop()
constexpr milliseconds kHelloTimeout{30000};  // a connection that never says Hello is dropped
constexpr milliseconds kFirstBackoff{1000};
constexpr milliseconds kMaxBackoff{60000};
constexpr std::size_t kRememberedIds = 2048;  // message ids kept for deduplication
constexpr int kMaxPayload = 64 * 1024 * 1024;
constexpr Poco::UInt16 kReconnectCloseCode = 4000;  // not 1000/1001: keeps the session resumable

std::unique_ptr<WebSocket> openSocket(const std::string& base_url) {
  Poco::URI uri(connectUrl(base_url));
  auto session = makeSession(uri);
  session->setTimeout(Poco::Timespan(30, 0));
  Poco::Net::HTTPRequest request(Poco::Net::HTTPRequest::HTTP_GET, pathAndQuery(uri),
                                 Poco::Net::HTTPMessage::HTTP_1_1);
  Poco::Net::HTTPResponse response;
  auto socket = std::make_unique<WebSocket>(*session, request, response);
  socket->setReceiveTimeout(Poco::Timespan(30, 0));
  socket->setMaxPayloadSize(kMaxPayload);
  return socket;
}

int closeCodeOf(const Poco::Buffer<char>& payload) {
  if (payload.size() < 2) return 1005;  // no status code present
  auto high = static_cast<unsigned char>(payload[0]);
  auto low = static_cast<unsigned char>(payload[1]);
  return high * 256 + low;
}

}  // namespace

/// One WebSocket connection and its heartbeat state.
struct Gateway::Link {
  std::unique_ptr<WebSocket> socket;
  std::int64_t interval_ms = 0;  // 0 until Hello
  Clock::time_point next_beat{};
  Clock::time_point hello_deadline{};
  bool awaiting_ack = false;
  bool resume = false;
  std::string pending_text;  // a fragmented text message being assembled
};

Gateway::Gateway(Host& host, GatewayOptions options)
    : host_(host), options_(std::move(options)), random_(std::random_device{}()) {}

Gateway::~Gateway() = default;

void Gateway::stop() {
  {
    std::lock_guard lock(mutex_);
    stop_ = true;
  }
  wake_.notify_all();
}

bool Gateway::stopping() const { return stop_ || host_.stopping(); }

bool Gateway::pause(milliseconds duration) {
  sleepFor(duration);
  return !stopping();
}

void Gateway::sleepFor(milliseconds duration) {
  auto until = Clock::now() + duration;
  std::unique_lock lock(mutex_);
  while (!stopping() && Clock::now() < until) {
    wake_.wait_until(lock, std::min(until, Clock::now() + kPollSlice));
  }
}

namespace {

// Discord may ask for an immediate reconnect (op 7, a resumable Invalid Session), but a
// connection that ended within a second of its start waits at least a second, so a peer
// that keeps dropping the link is never dialled in a tight loop.
milliseconds reconnectWait(milliseconds asked, milliseconds backoff,
                           std::chrono::steady_clock::duration lasted) {
  milliseconds wait = asked.count() >= 0 ? asked : backoff;
  if (lasted < kFirstBackoff) wait = std::max(wait, kFirstBackoff);
  return wait;
}

}  // namespace

Status Gateway::run(const std::string& url, const Callbacks& callbacks) {
  url_ = url;
  milliseconds backoff = kFirstBackoff;
  bool resume = false;
  while (!stopping()) {
    auto started = Clock::now();
    Outcome outcome = connectOnce(resume, callbacks);
    if (outcome.next == Next::kStop) break;
    if (outcome.next == Next::kFatal) {
      host_.log(LogLevel::kError, outcome.reason);
      return Status::error(outcome.reason);
    }
    if (outcome.next == Next::kIdentify) {
      session_id_.clear();
      seq_.reset();
    }
    resume = outcome.next == Next::kResume && !session_id_.empty();
    if (healthy_) backoff = kFirstBackoff;
    milliseconds wait = reconnectWait(outcome.delay, backoff, Clock::now() - started);
    host_.log(LogLevel::kWarn, "discord: gateway connection ended, reconnecting",
              {{"reason", outcome.reason},
               {"resume", resume ? "true" : "false"},
               {"wait_ms", std::to_string(wait.count())}});
    if (outcome.delay.count() < 0) backoff = std::min(backoff * 2, kMaxBackoff);
    sleepFor(wait);
  }
  return Status::ok();
}

Gateway::Outcome Gateway::connectOnce(bool resume, const Callbacks& callbacks) {
  Link link;
  healthy_ = false;
  const std::string& url = resume && !resume_url_.empty() ? resume_url_ : url_;
  try {
    link.socket = openSocket(url);
  } catch (const Poco::Exception& e) {
    return {resume ? Next::kResume : Next::kIdentify, "connect: " + e.displayText()};
  }
  try {
    return serve(link, resume, callbacks);
  } catch (const Poco::Exception& e) {
    return {resume || !session_id_.empty() ? Next::kResume : Next::kIdentify,
            "connection lost: " + e.displayText()};
  }
}

Gateway::Outcome Gateway::serve(Link& link, bool resume, const Callbacks& callbacks) {
  link.resume = resume;
  link.hello_deadline = Clock::now() + kHelloTimeout;
  for (;;) {
    if (stopping()) {
      link.socket->shutdown(WebSocket::WS_NORMAL_CLOSE, "shutting down");
      link.socket->close();
      return {Next::kStop, "stopped"};
    }
    if (auto ended = heartbeatIfDue(link)) return *ended;
    if (auto ended = pump(link, callbacks)) return *ended;
  }
}

std::optional<Gateway::Outcome> Gateway::heartbeatIfDue(Link& link) {
  auto now = Clock::now();
  if (link.interval_ms == 0) {
    if (now < link.hello_deadline) return std::nullopt;
    return closeAndReconnect(link, Next::kResume, "no Hello from the gateway", milliseconds(-1));
  }
  if (now < link.next_beat) return std::nullopt;
  if (link.awaiting_ack) {
    return closeAndReconnect(link, Next::kResume, "heartbeat not acknowledged", milliseconds(0));
  }
  sendText(link, heartbeatPayload(seq_));
  link.awaiting_ack = true;
  link.next_beat = now + milliseconds(link.interval_ms);
  return std::nullopt;
}

// Waits up to one poll slice for a frame and handles it.
std::optional<Gateway::Outcome> Gateway::pump(Link& link, const Callbacks& callbacks) {
  WebSocket& socket = *link.socket;
  if (socket.available() <= 0 &&
      !socket.poll(Poco::Timespan(kPollSlice.count() * 1000), Poco::Net::Socket::SELECT_READ)) {
    return std::nullopt;
  }
  Poco::Buffer<char> payload(0);
  int flags = 0;
  int size = socket.receiveFrame(payload, flags);
  int opcode = flags & WebSocket::FRAME_OP_BITMASK;
  if (size == 0 && flags == 0) return Outcome{Next::kResume, "connection closed by peer"};
  if (opcode == WebSocket::FRAME_OP_CLOSE) {
    int code = closeCodeOf(payload);
    CloseAction action = closeAction(code);
    if (action == CloseAction::kFatal) return Outcome{Next::kFatal, fatalCloseMessage(code)};
    Next next = action == CloseAction::kResume ? Next::kResume : Next::kIdentify;
    return Outcome{next, "gateway closed with code " + std::to_string(code)};
  }
  if (opcode == WebSocket::FRAME_OP_PING) {
    socket.sendFrame(
        payload.begin(), static_cast<int>(payload.size()),
        static_cast<int>(WebSocket::FRAME_FLAG_FIN) | static_cast<int>(WebSocket::FRAME_OP_PONG));
    return std::nullopt;
  }
  if (opcode != WebSocket::FRAME_OP_TEXT && opcode != WebSocket::FRAME_OP_CONT) return std::nullopt;
  link.pending_text.append(payload.begin(), payload.size());
  if ((flags & WebSocket::FRAME_FLAG_FIN) == 0) return std::nullopt;
  std::string text;
  text.swap(link.pending_text);
  return onText(link, text, callbacks);
}

std::optional<Gateway::Outcome> Gateway::onText(Link& link, const std::string& text,
                                                const Callbacks& callbacks) {
  Result<Frame> frame = parseFrame(text);
  if (!frame.isOk()) {
    host_.log(LogLevel::kWarn, frame.status().message());
    return std::nullopt;
  }
  return onFrame(link, frame.value(), callbacks);
}

std::optional<Gateway::Outcome> Gateway::onFrame(Link& link, const Frame& frame,
                                                 const Callbacks& callbacks) {
  switch (static_cast<Op>(frame.op)) {
    case Op::kDispatch: onDispatch(frame, callbacks); return std::nullopt;
    case Op::kHeartbeat: sendText(link, heartbeatPayload(seq_)); return std::nullopt;
    case Op::kHeartbeatAck:
      link.awaiting_ack = false;
      if (callbacks.alive) callbacks.alive();
      return std::nullopt;
    case Op::kHello: onHello(link, frame); return std::nullopt;
    case Op::kReconnect:
      return closeAndReconnect(link, Next::kResume, "gateway asked to reconnect (op 7)",
                               milliseconds(0));
    case Op::kInvalidSession: {
      if (invalidSessionResumable(frame)) {
        return closeAndReconnect(link, Next::kResume, "invalid session, resumable",
                                 milliseconds(0));
      }
      auto wait = milliseconds(std::uniform_int_distribution<int>(1000, 5000)(random_));
      return closeAndReconnect(link, Next::kIdentify, "invalid session, identifying anew", wait);
    }
    default: return std::nullopt;
  }
}

void Gateway::onHello(Link& link, const Frame& frame) {
  Result<std::int64_t> interval = helloInterval(frame);
  if (!interval.isOk()) {
    host_.log(LogLevel::kWarn, interval.status().message());
    return;
  }
  bool first = link.interval_ms == 0;
  link.interval_ms = interval.value();
  if (!first) return;
  // The first heartbeat waits interval * jitter so reconnecting clients spread out.
  double jitter = std::uniform_real_distribution<double>(0.0, 1.0)(random_);
  link.next_beat =
      Clock::now() +
      milliseconds(static_cast<std::int64_t>(static_cast<double>(link.interval_ms) * jitter));
  if (link.resume && seq_) {
    sendText(link, resumePayload(options_.token, session_id_, *seq_));
  } else {
    sendText(link, identifyPayload(options_.token, kIntents));
  }
}

void Gateway::onDispatch(const Frame& frame, const Callbacks& callbacks) {
  if (frame.seq) seq_ = frame.seq;
  if (callbacks.alive) callbacks.alive();
  if (frame.type == "READY") {
    Result<ReadyInfo> ready = parseReady(frame);
    if (!ready.isOk()) {
      host_.log(LogLevel::kWarn, ready.status().message());
      return;
    }
    session_id_ = ready->session_id;
    resume_url_ = ready->resume_gateway_url;
    self_id_ = ready->user_id;
    healthy_ = true;
    host_.log(LogLevel::kInfo, "discord: gateway session ready", {{"user_id", self_id_}});
  } else if (frame.type == "RESUMED") {
    healthy_ = true;
    host_.log(LogLevel::kInfo, "discord: gateway session resumed");
  } else if (frame.type == "MESSAGE_CREATE") {
    onMessage(frame, callbacks);
  }
}

void Gateway::onMessage(const Frame& frame, const Callbacks& callbacks) {
  Result<DiscordMessage> message = parseMessage(frame.data);
  if (!message.isOk()) {
    host_.log(LogLevel::kWarn, message.status().message());
    return;
  }
  Admission admission = admit(message.value(), options_.allowed_users, self_id_);
  if (admission == Admission::kStranger) {
    host_.log(LogLevel::kInfo, "discord: dropped a DM from a user not in DISCORD_ALLOWED_USERS",
              {{"user_id", message->author_id}, {"user_name", message->author_name}});
    return;
  }
  if (admission != Admission::kAccept) return;  // guild, our own or another bot's message
  if (message->content.empty() && toInbound(message.value()).images.empty()) {
    host_.log(LogLevel::kDebug, "discord: skipped a DM with neither text nor images",
              {{"message_id", message->id}});
    return;
  }
  if (!firstSighting(message->id)) {
    host_.log(LogLevel::kDebug, "discord: skipped a replayed message",
              {{"message_id", message->id}});
    return;
  }
  callbacks.message(message.value());
}

bool Gateway::firstSighting(const std::string& message_id) {
  if (!recent_set_.insert(message_id).second) return false;
  recent_ids_.push_back(message_id);
  if (recent_ids_.size() > kRememberedIds) {
    recent_set_.erase(recent_ids_.front());
    recent_ids_.pop_front();
  }
  return true;
}

Gateway::Outcome Gateway::closeAndReconnect(Link& link, Next next, std::string reason,
                                            milliseconds delay) {
  try {
    link.socket->shutdown(kReconnectCloseCode, "reconnecting");
    link.socket->close();
  } catch (const Poco::Exception&) {
    // The socket is being dropped either way.
  }
  return {next, std::move(reason), delay};
}

void Gateway::sendText(Link& link, const std::string& text) {
  link.socket->sendFrame(text.data(), static_cast<int>(text.size()), WebSocket::FRAME_TEXT);
}

}  // namespace gantry::discord
