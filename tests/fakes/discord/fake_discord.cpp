#include "fake_discord.h"

#include <Poco/Buffer.h>
#include <Poco/JSON/Object.h>
#include <Poco/JSON/Parser.h>
#include <Poco/Net/HTTPRequestHandler.h>
#include <Poco/Net/HTTPRequestHandlerFactory.h>
#include <Poco/Net/HTTPServerParams.h>
#include <Poco/Net/HTTPServerRequest.h>
#include <Poco/Net/HTTPServerResponse.h>
#include <Poco/Net/NetException.h>
#include <Poco/Net/ServerSocket.h>
#include <Poco/Net/WebSocket.h>
#include <Poco/URI.h>

#include <sstream>

#include "fakes/stop_promptly.h"

namespace gantry::testing {
namespace {

using Poco::JSON::Object;
using Poco::Net::WebSocket;

std::string stringify(const Object::Ptr& object) {
  std::ostringstream out;
  object->stringify(out);
  return out.str();
}

Object::Ptr parse(const std::string& text) {
  Poco::JSON::Parser parser;
  return parser.parse(text).extract<Object::Ptr>();
}

void sendText(WebSocket& socket, const std::string& text) {
  socket.sendFrame(text.data(), static_cast<int>(text.size()), WebSocket::FRAME_TEXT);
}

std::string opPayload(int op, const std::string& data_json) {
  return "{\"op\":" + std::to_string(op) + ",\"d\":" + data_json + ",\"s\":null,\"t\":null}";
}

void closeSocket(WebSocket& socket, int code) {
  try {
    socket.shutdown(static_cast<Poco::UInt16>(code), "");
    socket.close();
  } catch (const Poco::Exception&) {
  }
}

// Routes a request to the handler member it belongs to.
class Handler final : public Poco::Net::HTTPRequestHandler {
 public:
  using Fn = std::function<void(Poco::Net::HTTPServerRequest&, Poco::Net::HTTPServerResponse&)>;
  explicit Handler(Fn fn) : fn_(std::move(fn)) {}
  void handleRequest(Poco::Net::HTTPServerRequest& request,
                     Poco::Net::HTTPServerResponse& response) override {
    fn_(request, response);
  }

 private:
  Fn fn_;
};

}  // namespace

struct FakeDiscord::Conn {
  int id = 0;
  std::string session_id;  // attached session; empty until READY or a good Resume
  std::int64_t delivered = 0;
};

class FakeDiscord::Factory final : public Poco::Net::HTTPRequestHandlerFactory {
 public:
  explicit Factory(FakeDiscord& fake) : fake_(fake) {}
  Poco::Net::HTTPRequestHandler* createRequestHandler(
      const Poco::Net::HTTPServerRequest& request) override {
    const std::string path = Poco::URI(request.getURI()).getPath();
    FakeDiscord* fake = &fake_;
    if (path == "/gateway" || path == "/resume" || path == "/") {
      return new Handler([fake](auto& req, auto& resp) { fake->handleGateway(req, resp); });
    }
    if (path.rfind("/control/", 0) == 0) {
      return new Handler([fake](auto& req, auto& resp) { fake->handleControl(req, resp); });
    }
    if (path.rfind("/attachments/", 0) == 0) {
      return new Handler([fake](auto& req, auto& resp) { fake->handleAttachment(req, resp); });
    }
    return new Handler([fake](auto& req, auto& resp) { fake->handleRest(req, resp); });
  }

 private:
  FakeDiscord& fake_;
};

FakeDiscord::FakeDiscord() : FakeDiscord(Options{}) {}

FakeDiscord::FakeDiscord(Options options) : options_(std::move(options)) {
  Poco::Net::ServerSocket socket(Poco::Net::SocketAddress("127.0.0.1", 0));
  auto* params = new Poco::Net::HTTPServerParams;
  params->setMaxThreads(64);
  params->setKeepAlive(false);
  server_ = std::make_unique<Poco::Net::HTTPServer>(new Factory(*this), pool_, socket, params);
  server_->start();
}

FakeDiscord::~FakeDiscord() {
  {
    std::lock_guard lock(mutex_);
    stopping_ = true;
  }
  gantry::testing::wakeAcceptLoop(*server_);
  server_->stopAll(true);
  pool_.joinAll();
}

std::uint16_t FakeDiscord::port() const { return server_->port(); }

std::string FakeDiscord::apiBase() const {
  return "http://127.0.0.1:" + std::to_string(port()) + "/api/v10";
}

std::string FakeDiscord::gatewayUrl() const {
  return "ws://127.0.0.1:" + std::to_string(port()) + "/gateway";
}

void FakeDiscord::changed() { changed_cv_.notify_all(); }

FakeDiscord::Stats FakeDiscord::stats() const {
  std::lock_guard lock(mutex_);
  return stats_;
}

std::vector<FakeDiscord::Sent> FakeDiscord::sent() const {
  std::lock_guard lock(mutex_);
  return sent_;
}

bool FakeDiscord::waitUntil(const std::function<bool(const Stats&, const std::vector<Sent>&)>& pred,
                            std::chrono::milliseconds timeout) const {
  std::unique_lock lock(mutex_);
  return changed_cv_.wait_for(lock, timeout, [&] { return pred(stats_, sent_); });
}

std::string FakeDiscord::dispatch(const MessageSpec& spec) {
  std::lock_guard lock(mutex_);
  auto session = sessions_.find(current_session_);
  if (session == sessions_.end()) return "";
  std::string id = spec.id.empty() ? std::to_string(next_id_++) : spec.id;
  Object::Ptr author = new Object;
  author->set("id", spec.author_id);
  author->set("username", spec.author_name);
  author->set("global_name", spec.author_name);
  if (spec.bot) author->set("bot", true);
  Poco::JSON::Array::Ptr attachments = new Poco::JSON::Array;
  if (!spec.attachment_url.empty()) {
    Object::Ptr attachment = new Object;
    attachment->set("id", std::to_string(next_id_++));
    attachment->set("filename", "image.png");
    attachment->set("url", spec.attachment_url);
    attachment->set("content_type", spec.attachment_type);
    attachment->set("size", 68);
    attachments->add(attachment);
  }
  Object::Ptr data = new Object;
  data->set("id", id);
  data->set("type", 0);
  data->set("channel_id", spec.channel_id);
  if (!spec.guild_id.empty()) data->set("guild_id", spec.guild_id);
  data->set("author", author);
  data->set("content", spec.content);
  data->set("attachments", attachments);
  data->set("embeds", Poco::JSON::Array());
  data->set("timestamp", "2026-11-30T22:00:00.000000+00:00");
  appendDispatch(session->second, "MESSAGE_CREATE", stringify(data));
  changed();
  return id;
}

std::string FakeDiscord::appendDispatch(Session& session, const std::string& type,
                                        const std::string& data_json) {
  std::int64_t seq = ++session.seq;
  std::string payload =
      "{\"op\":0,\"s\":" + std::to_string(seq) + ",\"t\":\"" + type + "\",\"d\":" + data_json + "}";
  session.log.emplace_back(seq, payload);
  return payload;
}

void FakeDiscord::reconnect() {
  std::lock_guard lock(mutex_);
  actions_[live_conn_].push_back({Action::kReconnect, 0});
}

void FakeDiscord::requestHeartbeat() {
  std::lock_guard lock(mutex_);
  actions_[live_conn_].push_back({Action::kHeartbeat, 0});
}

void FakeDiscord::invalidSession(bool resumable) {
  std::lock_guard lock(mutex_);
  actions_[live_conn_].push_back({resumable ? Action::kInvalidResumable : Action::kInvalid, 0});
}

void FakeDiscord::closeWith(int code) {
  std::lock_guard lock(mutex_);
  actions_[live_conn_].push_back({Action::kClose, code});
}

void FakeDiscord::withholdAcks(bool on) {
  std::lock_guard lock(mutex_);
  withhold_acks_ = on;
}

void FakeDiscord::rateLimitNext(int count, double retry_after, bool global) {
  std::lock_guard lock(mutex_);
  scripted_429_ = count;
  scripted_retry_after_ = retry_after;
  scripted_global_ = global;
}

std::string FakeDiscord::addAttachment(const std::string& name, const std::string& bytes) {
  std::lock_guard lock(mutex_);
  attachments_[name] = bytes;
  return "http://127.0.0.1:" + std::to_string(port()) + "/attachments/" + name;
}

void FakeDiscord::handleGateway(Poco::Net::HTTPServerRequest& request,
                                Poco::Net::HTTPServerResponse& response) {
  std::unique_ptr<WebSocket> socket;
  try {
    socket = std::make_unique<WebSocket>(request, response);
  } catch (const Poco::Net::WebSocketException&) {
    response.setStatusAndReason(Poco::Net::HTTPResponse::HTTP_BAD_REQUEST);
    response.setContentLength(0);
    response.send();
    return;
  }
  Conn conn;
  {
    std::lock_guard lock(mutex_);
    conn.id = ++stats_.connections;
    stats_.paths.push_back(request.getURI());
    changed();
  }
  try {
    serveGateway(*socket, conn);
  } catch (const Poco::Exception&) {
    // The client went away; the session stays resumable.
  }
  std::lock_guard lock(mutex_);
  if (live_conn_ == conn.id) {
    live_conn_ = 0;
    stats_.ready = false;
  }
  changed();
}

void FakeDiscord::serveGateway(WebSocket& socket, Conn& conn) {
  sendText(socket, opPayload(10, "{\"heartbeat_interval\":" +
                                     std::to_string(options_.heartbeat_interval_ms) + "}"));
  socket.setReceiveTimeout(Poco::Timespan(10, 0));
  for (;;) {
    {
      std::lock_guard lock(mutex_);
      if (stopping_) return closeSocket(socket, 1001);
    }
    flushDispatches(socket, conn);  // first, so READY precedes any scripted action
    if (!runActions(socket, conn)) return;
    if (!socket.poll(Poco::Timespan(20L * 1000), Poco::Net::Socket::SELECT_READ)) continue;
    Poco::Buffer<char> payload(0);
    int flags = 0;
    int size = socket.receiveFrame(payload, flags);
    int opcode = flags & WebSocket::FRAME_OP_BITMASK;
    if (size == 0 && flags == 0) return;
    if (opcode == WebSocket::FRAME_OP_CLOSE) {
      int code = payload.size() >= 2 ? static_cast<unsigned char>(payload[0]) * 256 +
                                           static_cast<unsigned char>(payload[1])
                                     : 1005;
      std::lock_guard lock(mutex_);
      stats_.client_close_codes.push_back(code);
      // A normal close ends the session (Discord's documented behaviour).
      if ((code == 1000 || code == 1001) && sessions_.count(conn.session_id)) {
        sessions_[conn.session_id].valid = false;
      }
      return closeSocket(socket, code);
    }
    if (opcode != WebSocket::FRAME_OP_TEXT) continue;
    if (!onClientText(socket, conn, std::string(payload.begin(), payload.size()))) return;
  }
}

bool FakeDiscord::runActions(WebSocket& socket, Conn& conn) {
  std::deque<std::pair<Action, int>> pending;
  {
    std::lock_guard lock(mutex_);
    if (live_conn_ != conn.id) return true;
    pending.swap(actions_[conn.id]);
    for (const auto& [action, code] : pending) {
      if (action == Action::kInvalid && sessions_.count(conn.session_id)) {
        sessions_[conn.session_id].valid = false;
      }
    }
  }
  for (const auto& [action, code] : pending) {
    switch (action) {
      case Action::kReconnect: sendText(socket, opPayload(7, "null")); break;
      case Action::kHeartbeat: sendText(socket, opPayload(1, "null")); break;
      case Action::kInvalidResumable: sendText(socket, opPayload(9, "true")); break;
      case Action::kInvalid: sendText(socket, opPayload(9, "false")); break;
      case Action::kClose: closeSocket(socket, code); return false;
    }
  }
  return true;
}

void FakeDiscord::flushDispatches(WebSocket& socket, Conn& conn) {
  std::vector<std::string> out;
  {
    std::lock_guard lock(mutex_);
    if (conn.session_id.empty() || live_conn_ != conn.id) return;
    for (const auto& [seq, payload] : sessions_[conn.session_id].log) {
      if (seq > conn.delivered) out.push_back(payload);
      if (seq > conn.delivered) conn.delivered = seq;
    }
  }
  for (const auto& payload : out) sendText(socket, payload);
}

bool FakeDiscord::onClientText(WebSocket& socket, Conn& conn, const std::string& text) {
  Object::Ptr frame = parse(text);
  int op = frame->getValue<int>("op");
  if (op == 2) return onIdentify(socket, conn, text);
  if (op == 6) return onResume(socket, conn, text);
  if (op != 1) return true;
  std::lock_guard lock(mutex_);
  ++stats_.heartbeats;
  stats_.last_heartbeat_seq = frame->isNull("d") ? -1 : frame->getValue<std::int64_t>("d");
  if (!withhold_acks_) {
    ++stats_.acks;
    sendText(socket, opPayload(11, "null"));
  }
  changed();
  return true;
}

bool FakeDiscord::onIdentify(WebSocket& socket, Conn& conn, const std::string& text) {
  Object::Ptr data = parse(text)->getObject("d");
  std::lock_guard lock(mutex_);
  ++stats_.identifies;
  stats_.last_identify = text;
  changed();
  if (data->getValue<std::string>("token") != options_.token) {
    closeSocket(socket, 4004);
    return false;
  }
  int intents = data->getValue<int>("intents");
  if ((intents & (1 << 15)) != 0 && !options_.message_content_intent_enabled) {
    closeSocket(socket, 4014);
    return false;
  }
  std::string session_id = "session-" + std::to_string(++next_session_);
  Session& session = sessions_[session_id];
  appendDispatch(session, "READY", readyData(session_id));
  current_session_ = session_id;
  conn.session_id = session_id;
  conn.delivered = 0;
  live_conn_ = conn.id;
  stats_.ready = true;
  return true;
}

bool FakeDiscord::onResume(WebSocket& socket, Conn& conn, const std::string& text) {
  Object::Ptr data = parse(text)->getObject("d");
  std::lock_guard lock(mutex_);
  ++stats_.resumes;
  stats_.last_resume = text;
  changed();
  if (data->getValue<std::string>("token") != options_.token) {
    closeSocket(socket, 4004);
    return false;
  }
  auto session = sessions_.find(data->getValue<std::string>("session_id"));
  if (session == sessions_.end() || !session->second.valid) {
    sendText(socket, opPayload(9, "false"));
    return true;
  }
  conn.session_id = session->first;
  conn.delivered = data->getValue<std::int64_t>("seq");
  appendDispatch(session->second, "RESUMED", "{}");
  current_session_ = session->first;
  live_conn_ = conn.id;
  stats_.ready = true;
  return true;
}

std::string FakeDiscord::readyData(const std::string& session_id) const {
  Object::Ptr user = new Object;
  user->set("id", options_.bot_user_id);
  user->set("username", "gantry-bot");
  user->set("bot", true);
  Object::Ptr data = new Object;
  data->set("v", 10);
  data->set("user", user);
  data->set("guilds", Poco::JSON::Array());
  data->set("session_id", session_id);
  data->set("resume_gateway_url", "ws://127.0.0.1:" + std::to_string(port()) + "/resume");
  return stringify(data);
}

}  // namespace gantry::testing
