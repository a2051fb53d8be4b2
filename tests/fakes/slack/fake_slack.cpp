// FakeSlack: lifecycle, Socket Mode sockets and envelope delivery.

#include <Poco/Buffer.h>
#include <Poco/JSON/Array.h>
#include <Poco/JSON/Parser.h>
#include <Poco/Net/HTTPRequestHandler.h>
#include <Poco/Net/HTTPRequestHandlerFactory.h>
#include <Poco/Net/NetException.h>
#include <Poco/Net/SocketAddress.h>

#include <sstream>

#include "fake_slack_impl.h"
#include "fakes/stop_promptly.h"

namespace gantry::fakes {
namespace {

using Poco::Net::WebSocket;
using std::chrono::milliseconds;

constexpr auto kRetireAfterSuccessor = milliseconds(500);
constexpr auto kRetireDeadline = std::chrono::seconds(10);

std::string serialize(const Poco::JSON::Object& object) {
  std::ostringstream out;
  object.stringify(out);
  return out.str();
}

class Handler final : public Poco::Net::HTTPRequestHandler {
 public:
  explicit Handler(FakeSlack::Impl& impl) : impl_(impl) {}
  void handleRequest(Poco::Net::HTTPServerRequest& request,
                     Poco::Net::HTTPServerResponse& response) override {
    auto path = request.getURI().substr(0, request.getURI().find('?'));
    if (path.rfind("/link", 0) == 0) return impl_.serveSocket(request, response);
    if (path.rfind("/api/", 0) == 0) return impl_.serveApi(path.substr(5), request, response);
    if (path.rfind("/files/", 0) == 0) return impl_.serveFile(path.substr(7), request, response);
    if (path.rfind("/control/", 0) == 0) {
      return impl_.serveControl(path.substr(9), request, response);
    }
    response.setStatus(Poco::Net::HTTPResponse::HTTP_NOT_FOUND);
    response.send() << "not found";
  }

 private:
  FakeSlack::Impl& impl_;
};

class Factory final : public Poco::Net::HTTPRequestHandlerFactory {
 public:
  explicit Factory(FakeSlack::Impl& impl) : impl_(impl) {}
  Poco::Net::HTTPRequestHandler* createRequestHandler(
      const Poco::Net::HTTPServerRequest&) override {
    return new Handler(impl_);
  }

 private:
  FakeSlack::Impl& impl_;
};

std::string messageEvent(const FakeSlack::Event& event, const std::string& channel,
                         const std::string& ts, const FakeSlack::Impl& impl) {
  Poco::JSON::Object message;
  message.set("type", "message");
  message.set("channel", channel);
  message.set("user", event.user);
  message.set("text", event.text);
  message.set("ts", ts);
  message.set("event_ts", ts);
  message.set("channel_type", event.channel_type);
  if (event.subtype.empty() && event.bot_id.empty()) message.set("client_msg_id", "cm-" + ts);
  if (!event.subtype.empty()) message.set("subtype", event.subtype);
  if (!event.bot_id.empty()) message.set("bot_id", event.bot_id);
  if (!event.file_ids.empty()) {
    Poco::JSON::Array files;
    for (const auto& id : event.file_ids) {
      Poco::JSON::Object file;
      file.set("id", id);
      file.set("name", id + ".png");
      auto it = impl.files_.find(id);
      file.set("mimetype", it == impl.files_.end() ? "image/png" : it->second.mimetype);
      file.set("size", it == impl.files_.end() ? 0 : static_cast<int>(it->second.bytes.size()));
      file.set("url_private", impl.fileUrl(id));
      files.add(file);
    }
    message.set("files", files);
  }
  return serialize(message);
}

}  // namespace

FakeSlack::Impl::Impl(Options options)
    : options_(std::move(options)), server_socket_(Poco::Net::SocketAddress("127.0.0.1", 0)) {
  port_ = server_socket_.address().port();
  auto params = new Poco::Net::HTTPServerParams;
  params->setMaxThreads(32);
  params->setKeepAlive(false);
  server_ =
      std::make_unique<Poco::Net::HTTPServer>(new Factory(*this), pool_, server_socket_, params);
  server_->start();
  dispatcher_ = std::thread([this] { dispatchLoop(); });
}

FakeSlack::Impl::~Impl() {
  stopping_ = true;
  {
    std::lock_guard lock(mutex_);
    for (auto& socket : sockets_) socket->closing = true;
  }
  if (dispatcher_.joinable()) dispatcher_.join();
  gantry::testing::wakeAcceptLoop(*server_);
  server_->stopAll(true);
  pool_.joinAll();
}

void FakeSlack::Impl::serveSocket(Poco::Net::HTTPServerRequest& request,
                                  Poco::Net::HTTPServerResponse& response) {
  std::shared_ptr<Socket> socket;
  try {
    socket = std::make_shared<Socket>(WebSocket(request, response));
  } catch (const Poco::Exception& e) {
    response.setStatus(Poco::Net::HTTPResponse::HTTP_BAD_REQUEST);
    response.send() << e.displayText();
    return;
  }
  {
    std::lock_guard lock(mutex_);
    socket->id = next_socket_++;
    sockets_.push_back(socket);
    ++stats_.sockets_accepted;
    ++stats_.live_sockets;
    stats_.max_live_sockets = std::max(stats_.max_live_sockets, stats_.live_sockets);
    socket->hello_sent = sendText(
        *socket, R"({"type":"hello","num_connections":)" + std::to_string(stats_.live_sockets) +
                     R"(,"debug_info":{"host":"fake-slack","approximate_connection_time":18060},)"
                     R"("connection_info":{"app_id":"A0FAKE"}})");
  }
  Poco::Buffer<char> buffer(0);
  try {
    while (!stopping_) {
      {
        std::lock_guard lock(mutex_);
        if (socket->drop) break;
        if (socket->closing) {
          socket->ws.shutdown(WebSocket::WS_NORMAL_CLOSE, "refresh");
          break;
        }
      }
      if (!socket->ws.poll(Poco::Timespan(0, 50L * 1000), Poco::Net::Socket::SELECT_READ)) continue;
      int flags = 0;
      buffer.resize(0);
      int n = socket->ws.receiveFrame(buffer, flags);
      if (n == 0 && flags == 0) break;
      int opcode = flags & WebSocket::FRAME_OP_BITMASK;
      if (opcode == WebSocket::FRAME_OP_CLOSE) {
        socket->ws.shutdown();
        break;
      }
      if (opcode == WebSocket::FRAME_OP_PING) {
        std::lock_guard lock(mutex_);
        socket->ws.sendFrame(buffer.begin(), n,
                             int{WebSocket::FRAME_FLAG_FIN} | int{WebSocket::FRAME_OP_PONG});
      } else if (opcode == WebSocket::FRAME_OP_TEXT) {
        recordAck(std::string(buffer.begin(), static_cast<std::size_t>(n)));
      }
    }
  } catch (const Poco::Exception&) {
    // The client went away; the socket is unregistered below.
  }
  std::lock_guard lock(mutex_);
  socket->closing = true;
  --stats_.live_sockets;
  std::erase(sockets_, socket);
  try {
    socket->ws.close();
  } catch (const Poco::Exception&) {
  }
}

void FakeSlack::Impl::recordAck(const std::string& frame) {
  std::string id;
  try {
    Poco::JSON::Parser parser;
    auto object = parser.parse(frame).extract<Poco::JSON::Object::Ptr>();
    id = object->optValue<std::string>("envelope_id", "");
  } catch (const Poco::Exception&) {
    return;
  }
  std::lock_guard lock(mutex_);
  for (auto& envelope : envelopes_) {
    if (envelope.envelope_id == id && envelope.sent > 0) {
      envelope.acked = true;
      ++stats_.acks;
    }
  }
}

bool FakeSlack::Impl::sendText(Socket& socket, const std::string& text) {
  try {
    socket.ws.sendFrame(text.data(), static_cast<int>(text.size()), WebSocket::FRAME_TEXT);
    return true;
  } catch (const Poco::Exception&) {
    return false;
  }
}

void FakeSlack::Impl::dispatchLoop() {
  while (!stopping_) {
    std::this_thread::sleep_for(milliseconds(20));
    std::lock_guard lock(mutex_);
    deliverDue();
    closeRetiring();
  }
}

std::shared_ptr<FakeSlack::Impl::Socket> FakeSlack::Impl::newestSocket() {
  for (auto it = sockets_.rbegin(); it != sockets_.rend(); ++it) {
    if ((*it)->hello_sent && !(*it)->closing && !(*it)->drop) return *it;
  }
  return nullptr;
}

// First deliveries, Slack-style retries of unacked envelopes, and forced redeliveries.
void FakeSlack::Impl::deliverDue() {
  auto socket = newestSocket();
  if (!socket) return;
  auto now = Clock::now();
  for (auto& envelope : envelopes_) {
    bool first = envelope.sent == 0;
    bool retry = !envelope.acked && envelope.sent > 0 && envelope.sent <= options_.max_retries &&
                 now - envelope.last_sent > options_.redeliver_after;
    bool forced =
        envelope.extra > 0 && envelope.sent > 0 && now - envelope.last_sent > milliseconds(100);
    if (forced) --envelope.extra;
    if (first || retry || forced) sendEnvelope(envelope, socket);
  }
}

void FakeSlack::Impl::sendEnvelope(Envelope& envelope, const std::shared_ptr<Socket>& socket) {
  int attempt = envelope.sent;
  auto frame =
      R"({"envelope_id":")" + envelope.envelope_id + R"(","payload":)" + envelope.payload_json +
      R"(,"type":"events_api","accepts_response_payload":false,"retry_attempt":)" +
      std::to_string(attempt) + R"(,"retry_reason":")" + (attempt ? "timeout" : "") + R"("})";
  if (!sendText(*socket, frame)) return;
  ++envelope.sent;
  ++stats_.deliveries;
  envelope.last_sent = Clock::now();
}

// A refreshed socket closes shortly after a newer one has said hello, or at its deadline.
void FakeSlack::Impl::closeRetiring() {
  auto now = Clock::now();
  auto newest = newestSocket();
  for (auto& socket : sockets_) {
    if (!socket->retiring || socket->closing) continue;
    if (newest && newest->id > socket->id && !socket->successor_since) {
      socket->successor_since = now;
    }
    bool replaced =
        socket->successor_since && now - *socket->successor_since > kRetireAfterSuccessor;
    if (replaced || now >= socket->retire_deadline) socket->closing = true;
  }
}

std::string FakeSlack::Impl::enqueue(const Event& event) {
  std::lock_guard lock(mutex_);
  int n = next_id_++;
  auto channel = event.channel.empty() ? "D" + event.user : event.channel;
  channels_.insert(channel);
  char ts[32];
  std::snprintf(ts, sizeof ts, "1700000000.%06d", n);
  auto event_id = "Ev0FAKE" + std::to_string(n);
  auto payload = R"({"token":"fake","team_id":"T0FAKE","api_app_id":"A0FAKE","event":)" +
                 messageEvent(event, channel, ts, *this) +
                 R"(,"type":"event_callback","event_id":")" + event_id +
                 R"(","event_time":1700000000})";
  Envelope envelope;
  envelope.envelope_id = "env-" + std::to_string(n);
  envelope.payload_json = payload;
  envelope.extra = std::max(0, event.deliveries - 1);
  envelopes_.push_back(std::move(envelope));
  return event_id;
}

void FakeSlack::Impl::disconnect(const std::string& reason) {
  std::lock_guard lock(mutex_);
  auto socket = newestSocket();
  if (!socket) return;
  sendText(*socket, R"({"type":"disconnect","reason":")" + reason +
                        R"(","debug_info":{"host":"fake-slack"}})");
  if (reason == "link_disabled") {
    socket->closing = true;
    return;
  }
  socket->retiring = true;
  socket->retire_deadline = Clock::now() + kRetireDeadline;
}

std::string FakeSlack::Impl::fileUrl(const std::string& id) const {
  return "http://127.0.0.1:" + std::to_string(port_) + "/files/" + id;
}

// --- public face ----------------------------------------------------------------------------

FakeSlack::FakeSlack() : FakeSlack(Options{}) {}
FakeSlack::FakeSlack(Options options) : impl_(std::make_unique<Impl>(std::move(options))) {}
FakeSlack::~FakeSlack() = default;

int FakeSlack::port() const { return impl_->port_; }
std::string FakeSlack::apiBase() const {
  return "http://127.0.0.1:" + std::to_string(impl_->port_) + "/api";
}
const FakeSlack::Options& FakeSlack::options() const { return impl_->options_; }
std::string FakeSlack::enqueue(const Event& event) { return impl_->enqueue(event); }
void FakeSlack::disconnect(const std::string& reason) { impl_->disconnect(reason); }

void FakeSlack::dropSocket() {
  std::lock_guard lock(impl_->mutex_);
  if (auto socket = impl_->newestSocket()) socket->drop = true;
}

void FakeSlack::scriptError(const std::string& method, int http_status, const std::string& error,
                            int retry_after_seconds, int count) {
  std::lock_guard lock(impl_->mutex_);
  for (int i = 0; i < count; ++i) {
    impl_->scripts_[method].push_back({http_status, error, retry_after_seconds});
  }
}

void FakeSlack::putFile(const std::string& id, const std::string& mimetype,
                        const std::string& bytes) {
  std::lock_guard lock(impl_->mutex_);
  impl_->files_[id] = {mimetype, bytes};
}

std::vector<FakeSlack::Posted> FakeSlack::messages() const {
  std::lock_guard lock(impl_->mutex_);
  return impl_->messages_;
}

FakeSlack::Stats FakeSlack::stats() const {
  std::lock_guard lock(impl_->mutex_);
  auto stats = impl_->stats_;
  stats.unacked.clear();
  for (const auto& envelope : impl_->envelopes_) {
    if (!envelope.acked) stats.unacked.push_back(envelope.envelope_id);
  }
  return stats;
}

bool FakeSlack::waitFor(const std::function<bool()>& predicate, std::chrono::milliseconds timeout) {
  auto deadline = std::chrono::steady_clock::now() + timeout;
  while (std::chrono::steady_clock::now() < deadline) {
    if (predicate()) return true;
    std::this_thread::sleep_for(milliseconds(20));
  }
  return predicate();
}

}  // namespace gantry::fakes
