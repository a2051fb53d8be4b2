#include "fake_mcp_http.h"

#include <Poco/Exception.h>
#include <Poco/JSON/Array.h>
#include <Poco/JSON/Object.h>
#include <Poco/JSON/Parser.h>
#include <Poco/JSON/Stringifier.h>
#include <Poco/Net/HTTPRequestHandler.h>
#include <Poco/Net/HTTPRequestHandlerFactory.h>
#include <Poco/Net/HTTPServerRequest.h>
#include <Poco/Net/HTTPServerResponse.h>
#include <Poco/Net/ServerSocket.h>
#include <Poco/StreamCopier.h>

#include <sstream>

#include "fakes/stop_promptly.h"

namespace gantry::testing {
namespace {

using Poco::JSON::Object;
using Poco::Net::HTTPResponse;
using Poco::Net::HTTPServerRequest;
using Poco::Net::HTTPServerResponse;

std::string text(const Poco::Dynamic::Var& value) {
  std::ostringstream out;
  Poco::JSON::Stringifier::condense(value, out);
  return out.str();
}

std::string reply(const Poco::Dynamic::Var& id, const Object::Ptr& result) {
  Object::Ptr message = new Object;
  message->set("jsonrpc", "2.0");
  message->set("id", id);
  message->set("result", result);
  return text(message);
}

Object::Ptr textResult(const std::string& body) {
  Object::Ptr block = new Object;
  block->set("type", "text");
  block->set("text", body);
  Poco::JSON::Array::Ptr content = new Poco::JSON::Array;
  content->add(block);
  Object::Ptr result = new Object;
  result->set("content", content);
  return result;
}

Object::Ptr toolsResult() {
  Poco::JSON::Array::Ptr tools = new Poco::JSON::Array;
  for (const char* name : {"echo", "echo_sse", "echo_resume", "drop_sse"}) {
    Object::Ptr schema = new Object;
    schema->set("type", "object");
    Object::Ptr tool = new Object;
    tool->set("name", name);
    tool->set("inputSchema", schema);
    tools->add(tool);
  }
  Object::Ptr result = new Object;
  result->set("tools", tools);
  return result;
}

Object::Ptr initializeResult(const Object::Ptr& params) {
  Object::Ptr capabilities = new Object;
  capabilities->set("tools", Object::Ptr(new Object));
  Object::Ptr info = new Object;
  info->set("name", "fake-mcp-http");
  info->set("version", "1");
  Object::Ptr result = new Object;
  result->set("protocolVersion", params->optValue<std::string>("protocolVersion", ""));
  result->set("capabilities", capabilities);
  result->set("serverInfo", info);
  return result;
}

void sendStatus(HTTPServerResponse& response, HTTPResponse::HTTPStatus status,
                const std::string& body = "") {
  response.setStatus(status);
  response.setContentLength(static_cast<std::streamsize>(body.size()));
  response.send() << body;
}

void sendJson(HTTPServerResponse& response, const std::string& body) {
  response.setContentType("application/json");
  sendStatus(response, HTTPResponse::HTTP_OK, body);
}

std::ostream& startSse(HTTPServerResponse& response) {
  response.setContentType("text/event-stream");
  response.setChunkedTransferEncoding(true);
  response.setStatus(HTTPResponse::HTTP_OK);
  return response.send();
}

void sendSse(HTTPServerResponse& response, const std::vector<std::string>& events) {
  auto& out = startSse(response);
  for (const auto& event : events) out << "event: message\ndata: " << event << "\n\n" << std::flush;
}

class Handler final : public Poco::Net::HTTPRequestHandler {
 public:
  explicit Handler(std::shared_ptr<FakeMcpHttp::State> state) : state_(std::move(state)) {}

  void handleRequest(HTTPServerRequest& request, HTTPServerResponse& response) override {
    const auto session = request.get("Mcp-Session-Id", "");
    {
      std::lock_guard lock(state_->mutex);
      state_->record.targets.push_back(request.getURI());
      state_->record.hosts.push_back(request.getHost());
    }
    if (request.getMethod() == "DELETE") return end(session, response);
    if (request.getMethod() == "GET") return stream(session, request, response);
    std::string body;
    Poco::StreamCopier::copyToString(request.stream(), body);
    const auto accept = request.get("Accept", "");
    if (accept.find("application/json") == std::string::npos ||
        accept.find("text/event-stream") == std::string::npos) {
      return sendStatus(response, HTTPResponse::HTTP_NOT_ACCEPTABLE);
    }
    Poco::JSON::Parser parser;
    auto message = parser.parse(body).extract<Object::Ptr>();
    const auto method = message->optValue<std::string>("method", "");
    {
      std::lock_guard lock(state_->mutex);
      state_->record.authorizations.push_back(request.get("Authorization", ""));
      state_->record.methods.push_back(method);
    }
    if (method == "initialize") return initialize(message, response);
    if (!admit(session, request, response)) return;
    if (!message->has("id")) return sendStatus(response, HTTPResponse::HTTP_ACCEPTED);
    answer(message, response);
  }

 private:
  void initialize(const Object::Ptr& message, HTTPServerResponse& response) {
    std::string id;
    {
      std::lock_guard lock(state_->mutex);
      id = "session-" + std::to_string(state_->next_session++);
      state_->sessions.insert(id);
      ++state_->record.initializes;
    }
    response.set("Mcp-Session-Id", id);
    sendJson(response, reply(message->get("id"), initializeResult(message->getObject("params"))));
  }

  bool admit(const std::string& session, HTTPServerRequest& request, HTTPServerResponse& response) {
    std::lock_guard lock(state_->mutex);
    state_->record.last_protocol_header = request.get("MCP-Protocol-Version", "");
    if (session.empty()) {
      sendStatus(response, HTTPResponse::HTTP_BAD_REQUEST, "missing Mcp-Session-Id");
      return false;
    }
    if (state_->sessions.count(session) == 0) {
      ++state_->record.not_found;
      sendStatus(response, HTTPResponse::HTTP_NOT_FOUND, "unknown session");
      return false;
    }
    if (state_->record.last_protocol_header.empty()) {
      sendStatus(response, HTTPResponse::HTTP_BAD_REQUEST, "missing MCP-Protocol-Version");
      return false;
    }
    return true;
  }

  void answer(const Object::Ptr& message, HTTPServerResponse& response) {
    const auto method = message->getValue<std::string>("method");
    const auto id = message->get("id");
    if (method == "ping") return sendJson(response, reply(id, Object::Ptr(new Object)));
    if (method == "tools/list") return sendJson(response, reply(id, toolsResult()));
    auto params = message->getObject("params");
    auto arguments = params->getObject("arguments");
    const auto said = arguments.isNull() ? "" : arguments->optValue<std::string>("text", "");
    if (params->getValue<std::string>("name") == "drop_sse") return sendSse(response, {});
    if (params->getValue<std::string>("name") == "echo_resume") {
      return holdAnswer(reply(id, textResult(said)), response);
    }
    if (params->getValue<std::string>("name") == "echo_sse") {
      const std::string progress =
          R"({"jsonrpc":"2.0","method":"notifications/progress","params":{"progress":1,"progressToken":1}})";
      return sendSse(response, {progress, reply(id, textResult(said))});
    }
    sendJson(response, reply(id, textResult(said)));
  }

  // The stream ends after its priming event; the answer waits for the resuming GET.
  void holdAnswer(const std::string& answer, HTTPServerResponse& response) {
    std::string event;
    int retry = 0;
    {
      std::lock_guard lock(state_->mutex);
      event = "e-" + std::to_string(state_->next_event++);
      state_->held[event] = answer;
      retry = state_->retry_ms;
    }
    auto& out = startSse(response);
    out << "id: " << event << "\nretry: " << retry << "\ndata: \n\n" << std::flush;
    std::lock_guard lock(state_->mutex);
    state_->closed_at[event] = std::chrono::steady_clock::now();
  }

  void stream(const std::string& session, HTTPServerRequest& request,
              HTTPServerResponse& response) {
    std::unique_lock lock(state_->mutex);
    ++state_->record.gets;
    if (state_->refuse_get) {
      lock.unlock();
      return sendStatus(response, HTTPResponse::HTTP_METHOD_NOT_ALLOWED);
    }
    if (state_->sessions.count(session) == 0) {
      lock.unlock();
      return sendStatus(response, HTTPResponse::HTTP_NOT_FOUND, "unknown session");
    }
    const auto last = request.get("Last-Event-ID", "");
    if (!last.empty()) state_->record.last_event_ids.push_back(last);
    auto held = state_->held.find(last);
    if (held == state_->held.end()) return standing(lock, response);
    const auto gap = std::chrono::steady_clock::now() - state_->closed_at[last];
    state_->record.resume_gaps_ms.push_back(
        std::chrono::duration_cast<std::chrono::milliseconds>(gap).count());
    const auto answer = held->second;
    state_->held.erase(held);
    lock.unlock();
    sendSse(response, {answer});
  }

  // Open until the server stops or the client goes; pushed messages go out as they come.
  void standing(std::unique_lock<std::mutex>& lock, HTTPServerResponse& response) {
    ++state_->record.open_streams;
    std::size_t sent = state_->pushed.size();
    const auto event = "s-" + std::to_string(state_->next_event++);
    lock.unlock();
    try {
      auto& out = startSse(response);
      out << "id: " << event << "\ndata: \n\n" << std::flush;
      lock.lock();
      while (!state_->stopping && out.good()) {
        state_->changed.wait_for(lock, std::chrono::milliseconds(50));
        while (sent < state_->pushed.size()) out << "data: " << state_->pushed[sent++] << "\n\n";
        out.flush();
      }
    } catch (const Poco::Exception&) {  // the client went away
    }
    if (!lock.owns_lock()) lock.lock();
    --state_->record.open_streams;
  }

  void end(const std::string& session, HTTPServerResponse& response) {
    std::lock_guard lock(state_->mutex);
    state_->record.deleted.push_back(session);
    state_->sessions.erase(session);
    sendStatus(response, HTTPResponse::HTTP_OK);
  }

  std::shared_ptr<FakeMcpHttp::State> state_;
};

class Factory final : public Poco::Net::HTTPRequestHandlerFactory {
 public:
  explicit Factory(std::shared_ptr<FakeMcpHttp::State> state) : state_(std::move(state)) {}
  Poco::Net::HTTPRequestHandler* createRequestHandler(const HTTPServerRequest&) override {
    return new Handler(state_);
  }

 private:
  std::shared_ptr<FakeMcpHttp::State> state_;
};

}  // namespace

FakeMcpHttp::FakeMcpHttp() : state_(std::make_shared<State>()) {
  Poco::Net::ServerSocket socket(Poco::Net::SocketAddress("127.0.0.1", 0));
  server_ = std::make_unique<Poco::Net::HTTPServer>(new Factory(state_), threads_, socket,
                                                    new Poco::Net::HTTPServerParams);
  server_->start();
}

FakeMcpHttp::~FakeMcpHttp() {
  {
    std::lock_guard lock(state_->mutex);
    state_->stopping = true;
  }
  state_->changed.notify_all();
  gantry::testing::wakeAcceptLoop(*server_);
  server_->stopAll(true);
  threads_.joinAll();
}

std::string FakeMcpHttp::url() const { return rootUrl() + "/mcp"; }

std::string FakeMcpHttp::rootUrl() const {
  return "http://127.0.0.1:" + std::to_string(server_->port());
}

int FakeMcpHttp::port() const { return server_->port(); }

void FakeMcpHttp::refuseGet() {
  std::lock_guard lock(state_->mutex);
  state_->refuse_get = true;
}

void FakeMcpHttp::push(const std::string& message) {
  {
    std::lock_guard lock(state_->mutex);
    state_->pushed.push_back(message);
  }
  state_->changed.notify_all();
}

void FakeMcpHttp::setRetryMs(int ms) {
  std::lock_guard lock(state_->mutex);
  state_->retry_ms = ms;
}

void FakeMcpHttp::expireSessions() {
  std::lock_guard lock(state_->mutex);
  state_->sessions.clear();
}

FakeMcpHttp::Record FakeMcpHttp::record() const {
  std::lock_guard lock(state_->mutex);
  return state_->record;
}

}  // namespace gantry::testing
