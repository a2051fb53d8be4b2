#include "api/api_server.h"

#include <Poco/JSON/Array.h>
#include <Poco/JSON/Object.h>
#include <Poco/Net/HTTPRequestHandler.h>
#include <Poco/Net/HTTPRequestHandlerFactory.h>
#include <Poco/Net/HTTPServerParams.h>
#include <Poco/Net/HTTPServerRequest.h>
#include <Poco/Net/HTTPServerResponse.h>
#include <Poco/Net/ServerSocket.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <regex>
#include <sstream>

#include "api/request_body.h"
#include "log/log.h"

namespace gantry::api {
namespace {

using Poco::JSON::Object;

std::string toJson(const Object& object) {
  std::ostringstream out;
  object.stringify(out);
  return out.str();
}

std::string errorJson(const std::string& message) {
  Object object;
  object.set("error", message);
  return toJson(object);
}

/// Reads at most max + 1 bytes: more than max is refused without reading the rest.
std::string readBody(std::istream& in, std::size_t max) {
  std::string body(max + 1, '\0');
  in.read(body.data(), static_cast<std::streamsize>(body.size()));
  body.resize(static_cast<std::size_t>(in.gcount()));
  return body;
}

/// Reads and drops a refused body of up to 16 MB, so the client, still sending, reads the 413
/// instead of a reset connection; a larger one is cut off. False when it was not read.
bool discard(std::istream& in, int64_t length) {
  constexpr int64_t kMaxDiscard = 16 << 20;
  if (length > kMaxDiscard) return false;
  in.ignore(static_cast<std::streamsize>(length));
  return true;
}

/// A unix socket created in a fresh 0700 directory beside path, given mode 0600 there and
/// renamed into place: no other user can reach it at any moment, and the process umask (shared
/// by every thread) is left alone.
Poco::Net::ServerSocket bindUnixSocket(const std::string& path) {
  std::string dir_template = path + ".XXXXXX";
  if (!::mkdtemp(dir_template.data())) {  // mode 0700
    throw Poco::IOException("cannot create a private directory beside " + path,
                            std::strerror(errno));
  }
  const std::string staging = dir_template + "/api.sock";
  Poco::Net::ServerSocket socket;
  try {
    socket.bind(Poco::Net::SocketAddress(Poco::Net::SocketAddress::UNIX_LOCAL, staging));
    if (::chmod(staging.c_str(), 0600) != 0 || ::rename(staging.c_str(), path.c_str()) != 0) {
      throw Poco::IOException("cannot move the socket to " + path, std::strerror(errno));
    }
  } catch (...) {
    ::unlink(staging.c_str());
    ::rmdir(dir_template.c_str());
    throw;
  }
  ::rmdir(dir_template.c_str());
  return socket;
}

class Handler final : public Poco::Net::HTTPRequestHandler {
 public:
  explicit Handler(ApiServer& server) : server_(server) {}
  void handleRequest(Poco::Net::HTTPServerRequest& request,
                     Poco::Net::HTTPServerResponse& response) override {
    server_.handle(request, response);
  }

 private:
  ApiServer& server_;
};

class Factory final : public GatedRequestHandlerFactory {
 public:
  explicit Factory(ApiServer& server) : server_(server) {}
  Poco::Net::HTTPRequestHandler* createRequestHandler(
      const Poco::Net::HTTPServerRequest&) override {
    return new Handler(server_);
  }

 private:
  ApiServer& server_;
};

}  // namespace

struct ApiServer::Reply {
  int status = 200;
  std::string body;
  int retry_after = 0;
  std::map<std::string, std::string> headers = {};
};

ApiServer::ApiServer(ApiOptions options, ApiParts parts)
    : options_(std::move(options)),
      parts_(std::move(parts)),
      mcp_(
          parts_.tasks, [this](const std::string& text) { return notifyOwner(text); },
          parts_.status),
      gate_(GateLimits{}),
      pool_(1, options_.threads + gate_.limits().slow_total) {}

Status ApiServer::notifyOwner(const std::string& text) {
  if (options_.owner_chat.empty())
    return Status::error("no owner chat to notify: set API_OWNER_CHAT");
  auto sent = parts_.channel.send(options_.owner_chat, text);
  return sent.isOk() ? Status::ok() : Status::error("not delivered: " + sent.status().message());
}

ApiServer::~ApiServer() { stop(); }

Result<std::unique_ptr<ApiServer>> ApiServer::start(ApiOptions options, ApiParts parts) {
  std::unique_ptr<ApiServer> server(new ApiServer(std::move(options), std::move(parts)));
  const ListenAddress& listen = server->options_.listen;
  try {
    Poco::Net::ServerSocket socket;
    if (!listen.unix_path.empty()) {
      socket = bindUnixSocket(listen.unix_path);  // replaces a socket left by an earlier run
    } else {
      socket.bind(Poco::Net::SocketAddress(listen.host, listen.port), true);
    }
    socket.listen(256);
    auto* params = new Poco::Net::HTTPServerParams;
    // Threads for requests plus the gate's slow connections (see head_gate.h); tasks take at
    // most TASK_CONCURRENCY of the former, so /status always finds one.
    params->setMaxThreads(server->pool_.capacity());
    params->setMaxQueued(256);  // a burst queues (holding no thread) rather than being reset
    params->setTimeout(Poco::Timespan(10, 0));  // per receive, for bodies; heads have the gate
    server->server_ = std::make_unique<GatedHttpServer>(new Factory(*server), server->pool_, socket,
                                                        params, server->gate_);
  } catch (const Poco::Exception& e) {
    return Status::error("API_LISTEN: cannot listen: " + e.displayText());
  }
  log::info("api_listening",
            {{"address", listen.unix_path.empty() ? listen.host + ":" + std::to_string(listen.port)
                                                  : "unix:" + listen.unix_path}});
  return server;
}

void ApiServer::stop() {
  if (!server_) return;
  server_->stop();  // a request being handled is answered before its socket closes
  pool_.joinAll();
  server_.reset();
  if (!options_.listen.unix_path.empty()) ::unlink(options_.listen.unix_path.c_str());
}

void ApiServer::handle(Poco::Net::HTTPServerRequest& request,
                       Poco::Net::HTTPServerResponse& response) {
  Reply reply;
  bool body_read = false;
  try {
    std::string client = options_.listen.unix_path.empty()
                             ? request.clientAddress().host().toString()
                             : std::string("unix");
    int retry = 0;
    std::string auth = request.get("Authorization", "");
    // Both compared every time, in constant time: which one matched takes no longer.
    const bool task_token = bearerMatches(auth, options_.token);
    const bool approver = bearerMatches(auth, options_.approve_token);
    if (!loopbackHostAllowed(request.getHost(), request.get("Origin", ""), options_.listen)) {
      reply = {403, errorJson("forbidden: the Host or Origin is not this loopback listener")};
    } else if (!task_token && !approver) {
      // Guesses are paced in their own bucket, so they never use up a real client's.
      reply = failures_.allow(client, &retry) ? Reply{401, errorJson("unauthorized")}
                                              : Reply{429, errorJson("too many requests"), retry};
    } else if (!limiter_.allow(approver ? "approve-token" : "task-token", &retry)) {
      reply = {429, errorJson("too many requests"), retry};
    } else if (request.hasContentLength() &&
               request.getContentLength64() > static_cast<int64_t>(options_.max_body)) {
      body_read = discard(request.stream(), request.getContentLength64());
      reply = {413, errorJson("the body is over " + std::to_string(options_.max_body) + " bytes")};
    } else {
      std::string body = readBody(request.stream(), options_.max_body);
      body_read = body.size() <= options_.max_body;
      if (!body_read) {
        reply = {413,
                 errorJson("the body is over " + std::to_string(options_.max_body) + " bytes")};
      } else {
        std::string path = request.getURI().substr(0, request.getURI().find('?'));
        if (path == "/mcp") {
          auto answer = mcp_.handle({request.getMethod(), request.get("Mcp-Session-Id", ""),
                                     request.get("MCP-Protocol-Version", ""), body});
          reply = {answer.status, answer.body, 0, answer.headers};
        } else {
          reply = route(request.getMethod(), path, body, approver);
        }
      }
    }
  } catch (const std::exception& e) {
    log::error("api_request_failed", {{"error", e.what()}});
    reply = {500, errorJson("internal error")};
  }
  // A request refused before its body was read leaves that body on the connection, where it
  // would be taken for the next request: such a connection is closed after the answer.
  if (!body_read) response.setKeepAlive(false);
  response.setStatusAndReason(static_cast<Poco::Net::HTTPResponse::HTTPStatus>(reply.status));
  response.setContentType("application/json");
  if (reply.retry_after > 0) response.set("Retry-After", std::to_string(reply.retry_after));
  for (const auto& [name, value] : reply.headers) response.set(name, value);
  response.setContentLength(static_cast<std::streamsize>(reply.body.size()));
  response.send() << reply.body;
}

ApiServer::Reply ApiServer::route(const std::string& method, const std::string& path,
                                  const std::string& body, bool approver) {
  static const std::regex kDecision("/approvals/([A-Za-z0-9]{1,16})/(approve|deny)");
  std::smatch m;
  bool approvals_path = path == "/approvals" || std::regex_match(path, m, kDecision);
  if (approvals_path) {
    if (options_.approve_token.empty()) {
      return {403, errorJson("the approval endpoints are off (set API_APPROVE_TOKEN)")};
    }
    if (!approver) return {403, errorJson("deciding approvals needs API_APPROVE_TOKEN")};
    if (path == "/approvals") {
      return method == "GET" ? approvalsList() : Reply{405, errorJson("use GET")};
    }
    return method == "POST" ? decide(m[1].str(), m[2].str() == "approve")
                            : Reply{405, errorJson("use POST")};
  }
  if (path == "/task") return method == "POST" ? postTask(body) : Reply{405, errorJson("use POST")};
  if (path == "/notify") {
    return method == "POST" ? postNotify(body) : Reply{405, errorJson("use POST")};
  }
  if (path == "/status") {
    return method == "GET" ? Reply{200, parts_.status()} : Reply{405, errorJson("use GET")};
  }
  return {404, errorJson("no endpoint " + path)};
}

ApiServer::Reply ApiServer::postTask(const std::string& body) {
  auto task = parseTask(body);
  if (!task.isOk()) return {400, errorJson(task.status().message())};
  // The allowlist lives in the channel module, out of the API's reach: a reply may go to the
  // owner's chat only, never to a chat the caller names.
  if (!task->chat.empty() && task->chat != options_.owner_chat) {
    return {400, errorJson("\"chat\" may only name the owner's chat (API_OWNER_CHAT)")};
  }
  TaskOutcome outcome = parts_.tasks.run(task.value());
  if (outcome.http_status != 200) {
    return {outcome.http_status, errorJson(outcome.error), outcome.retry_after};
  }
  Object out;
  out.set("id", outcome.row.id);
  out.set("status", outcome.row.status);
  out.set("reply", outcome.row.reply);
  out.set("steps", outcome.row.steps);
  out.set("ms", outcome.row.ms);
  return {200, toJson(out)};
}

ApiServer::Reply ApiServer::postNotify(const std::string& body) {
  auto object = parseObject(body, {"text", "level"});
  if (!object.isOk()) return {400, errorJson(object.status().message())};
  auto text = textField(*object.value(), "text", true);
  if (!text.isOk()) return {400, errorJson(text.status().message())};
  if (text->empty()) return {400, errorJson("\"text\" is empty")};
  auto level = textField(*object.value(), "level", false);
  if (!level.isOk()) return {400, errorJson(level.status().message())};
  std::string prefix;
  if (level.value() == "warn") {
    prefix = "⚠️ ";
  } else if (level.value() == "error") {
    prefix = "🚨 ";
  } else if (!level->empty() && level.value() != "info") {
    return {400, errorJson("\"level\" must be info, warn or error")};
  }
  if (options_.owner_chat.empty()) {
    return {409, errorJson("no owner chat to notify: set API_OWNER_CHAT")};
  }
  if (Status sent = notifyOwner(prefix + text.value()); !sent.isOk()) {
    return {502, errorJson(sent.message())};
  }
  Object out;
  out.set("delivered", true);
  return {200, toJson(out)};
}

ApiServer::Reply ApiServer::approvalsList() {
  auto pending = parts_.approvals.pending();
  if (!pending.isOk()) return {500, errorJson(pending.status().message())};
  Poco::JSON::Array list;
  for (const auto& row : pending.value()) {
    Object item;
    item.set("id", row.id);
    item.set("chat", row.chat_id);
    item.set("tool", row.tool);
    item.set("arguments", log::redact(row.arguments));
    item.set("created_at", log::isoUtc(row.created_at));
    item.set("expires_at", log::isoUtc(row.expires_at));
    list.add(item);
  }
  Object out;
  out.set("approvals", list);
  return {200, toJson(out)};
}

ApiServer::Reply ApiServer::decide(const std::string& id, bool approve) {
  auto decided = parts_.approvals.decide(id, approve, "api", {});
  if (!decided.isOk()) return {409, errorJson(decided.status().message())};
  Object out;
  out.set("id", decided->id);
  out.set("tool", decided->tool);
  out.set("state", store::approvalStateName(decided->state));
  return {200, toJson(out)};
}

}  // namespace gantry::api
