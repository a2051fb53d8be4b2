#include "fake_openai_server.h"

#include <algorithm>
#include <sstream>
#include <stdexcept>
#include <thread>

#include "Poco/Net/HTTPRequestHandler.h"
#include "Poco/Net/HTTPRequestHandlerFactory.h"
#include "Poco/Net/HTTPServerParams.h"
#include "Poco/Net/HTTPServerRequest.h"
#include "Poco/Net/HTTPServerRequestImpl.h"
#include "Poco/Net/ServerSocket.h"
#include "Poco/StreamCopier.h"
#include "Poco/URI.h"
#include "fake_openai_internal.h"
#include "fakes/stop_promptly.h"

namespace gantry::testing {
namespace {

using Poco::Net::HTTPServerRequest;
using Poco::Net::HTTPServerResponse;

constexpr int kCloseDelayMs = 50;

// One line per request: compact JSON bodies are kept verbatim, others lose their newlines.
std::string logLine(std::string body) {
  for (char& c : body) {
    if (c == '\n' || c == '\r') c = ' ';
  }
  return body;
}

void sendModels(HTTPServerResponse& response) {
  sendBody(response, "application/json",
           R"({"object":"list","data":[{"id":"fake-model","object":"model",)"
           R"("created":0,"owned_by":"gantry-tests"}]})");
}

class ChatHandler final : public Poco::Net::HTTPRequestHandler {
 public:
  explicit ChatHandler(std::shared_ptr<FakeOpenAiServer::State> state) : state_(std::move(state)) {}

  void handleRequest(HTTPServerRequest& request, HTTPServerResponse& response) override {
    const auto start = std::chrono::steady_clock::now();
    try {
      route(request, response);
    } catch (const std::exception&) {  // the client went away mid-reply; nothing to tell
    }
    const auto end = std::chrono::steady_clock::now();
    const std::chrono::duration<double, std::milli> spent = end - start;
    std::lock_guard lock(state_->mutex);
    state_->handlings.push_back({end, spent.count()});
  }

 private:
  void route(HTTPServerRequest& request, HTTPServerResponse& response) {
    std::string path = Poco::URI(request.getURI()).getPath();
    bool chat = path == "/v1/chat/completions" || path == "/chat/completions";
    bool models = path == "/v1/models" || path == "/models";
    if (models && request.getMethod() == "GET") return sendModels(response);
    if (!chat) {
      return sendError(response, 404,
                       "Unknown request URL: " + request.getMethod() + " " + path + ".");
    }
    if (request.getMethod() != "POST") {
      return sendError(response, 405, "Method " + request.getMethod() + " not allowed.");
    }
    std::string body;
    Poco::StreamCopier::copyToString(request.stream(), body);
    int serial = record(body);
    if (!authorized(request)) {
      return sendError(response, 401, "Incorrect API key provided.");
    }
    ParsedRequest parsed;
    if (auto error = validateRequest(body, &parsed)) {
      return sendError(response, 400, error->message, error->param);
    }
    reply(request, response, parsed, nextReply(parsed, body), serial);
  }

  int record(const std::string& body) {
    std::lock_guard lock(state_->mutex);
    state_->requests.push_back(body);
    if (state_->requests_log.is_open()) state_->requests_log << logLine(body) << std::endl;
    return ++state_->served;
  }

  bool authorized(const HTTPServerRequest& request) {
    std::lock_guard lock(state_->mutex);
    return state_->api_key.empty() ||
           request.get("Authorization", "") == "Bearer " + state_->api_key;
  }

  /// gantry puts a context block ([memory], [now] lines, then a blank line) before the
  /// current message; the echo repeats only what the user wrote.
  static std::string withoutContextBlock(std::string text) {
    while (text.rfind("[memory]", 0) == 0 || text.rfind("[now]", 0) == 0) {
      auto end = text.find("\n\n");
      if (end == std::string::npos) break;
      text.erase(0, end + 2);
    }
    return text;
  }

  ScriptedReply nextReply(const ParsedRequest& request, const std::string& body) {
    std::unique_lock lock(state_->mutex);
    if (state_->script.empty() && state_->responder) {
      FakeOpenAiServer::Responder responder = state_->responder;
      lock.unlock();
      return responder(body);
    }
    if (state_->script.empty()) {
      ScriptedReply echo;
      echo.content = "echo: " + withoutContextBlock(request.last_user_text);
      return echo;
    }
    ScriptedReply next = std::move(state_->script.front());
    state_->script.pop_front();
    return next;
  }

  void reply(HTTPServerRequest& request, HTTPServerResponse& response, const ParsedRequest& parsed,
             const ScriptedReply& scripted, int serial) {
    if (scripted.delay_ms > 0 && !state_->sleepFor(scripted.delay_ms)) return;
    if (scripted.drop) {
      dynamic_cast<Poco::Net::HTTPServerRequestImpl&>(request).socket().shutdown();
      return;
    }
    if (scripted.status != 200) {
      std::string message = scripted.error_message.empty()
                                ? "Scripted failure with status " + std::to_string(scripted.status)
                                : scripted.error_message;
      return sendError(response, scripted.status, message, "", scripted.retry_after);
    }
    if (scripted.body) {
      return sendBody(response, parsed.stream ? "text/event-stream" : "application/json",
                      *scripted.body);
    }
    if (parsed.stream) {
      sendStream(response, parsed, scripted, serial, *state_);
      // Before the response stream ends its chunked body: the client sees the cut.
      if (scripted.cut_mid_call) {
        dynamic_cast<Poco::Net::HTTPServerRequestImpl&>(request).socket().shutdown();
        return;
      }
    } else {
      sendCompletion(response, parsed, scripted, serial);
    }
    if (scripted.close)
      closeSoon(dynamic_cast<Poco::Net::HTTPServerRequestImpl&>(request).socket());
  }

  // Shuts the connection a moment after the reply went out, while the server waits for the
  // next request on it: what an idle timeout does to a keep-alive connection.
  void closeSoon(Poco::Net::StreamSocket socket) {
    std::thread([socket, state = state_]() mutable {
      state->sleepFor(kCloseDelayMs);
      try {
        socket.shutdown();
      } catch (const Poco::Exception&) {  // already closed
      }
    }).detach();
  }

  std::shared_ptr<FakeOpenAiServer::State> state_;
};

class ChatHandlerFactory final : public Poco::Net::HTTPRequestHandlerFactory {
 public:
  explicit ChatHandlerFactory(std::shared_ptr<FakeOpenAiServer::State> state)
      : state_(std::move(state)) {}
  Poco::Net::HTTPRequestHandler* createRequestHandler(const HTTPServerRequest&) override {
    return new ChatHandler(state_);
  }

 private:
  std::shared_ptr<FakeOpenAiServer::State> state_;
};

}  // namespace

FakeOpenAiServer::FakeOpenAiServer(std::uint16_t port)
    : state_(std::make_shared<State>()), pool_(2, 64) {
  Poco::Net::ServerSocket socket(Poco::Net::SocketAddress("127.0.0.1", port));
  state_->port = socket.address().port();
  auto* params = new Poco::Net::HTTPServerParams;
  params->setMaxThreads(64);
  params->setMaxQueued(256);
  params->setKeepAlive(true);
  server_ = std::make_unique<Poco::Net::HTTPServer>(new ChatHandlerFactory(state_), pool_, socket,
                                                    params);
  server_->start();
}

FakeOpenAiServer::~FakeOpenAiServer() {
  {
    std::lock_guard lock(state_->mutex);
    state_->stopping = true;
  }
  state_->wake.notify_all();
  gantry::testing::wakeAcceptLoop(*server_);
  server_->stopAll(true);
  pool_.joinAll();
}

void FakeOpenAiServer::addReply(std::string_view json_line) {
  ScriptedReply reply = parseScriptLine(json_line);
  std::lock_guard lock(state_->mutex);
  state_->script.push_back(std::move(reply));
}

void FakeOpenAiServer::loadScript(std::string_view jsonl) {
  std::istringstream in{std::string(jsonl)};
  std::string line;
  for (int number = 1; std::getline(in, line); ++number) {
    std::size_t first = line.find_first_not_of(" \t\r");
    if (first == std::string::npos || line[first] == '#') continue;
    try {
      addReply(line);
    } catch (const std::invalid_argument& e) {
      throw std::invalid_argument("line " + std::to_string(number) + ": " + e.what());
    }
  }
}

void FakeOpenAiServer::loadScriptFile(const std::string& path) {
  std::ifstream in(path);
  if (!in) throw std::invalid_argument("cannot read script " + path);
  std::ostringstream text;
  text << in.rdbuf();
  try {
    loadScript(text.str());
  } catch (const std::invalid_argument& e) {
    throw std::invalid_argument(path + ": " + e.what());
  }
}

void FakeOpenAiServer::setResponder(Responder responder) {
  std::lock_guard lock(state_->mutex);
  state_->responder = std::move(responder);
}

void FakeOpenAiServer::setRequestsLog(const std::string& path) {
  std::lock_guard lock(state_->mutex);
  state_->requests_log.open(path, std::ios::app);
  if (!state_->requests_log) throw std::invalid_argument("cannot write requests log " + path);
}

void FakeOpenAiServer::requireApiKey(std::string key) {
  std::lock_guard lock(state_->mutex);
  state_->api_key = std::move(key);
}

std::uint16_t FakeOpenAiServer::port() const { return state_->port; }

std::string FakeOpenAiServer::baseUrl() const {
  return "http://127.0.0.1:" + std::to_string(port()) + "/v1";
}

int FakeOpenAiServer::connections() const { return server_->totalConnections(); }

int FakeOpenAiServer::openConnections() const { return server_->currentConnections(); }

double FakeOpenAiServer::handlingMs() const {
  std::lock_guard lock(state_->mutex);
  double ms = 0;
  for (const auto& handling : state_->handlings) ms += handling.ms;
  return ms;
}

std::vector<FakeOpenAiServer::Handling> FakeOpenAiServer::handlings() const {
  std::lock_guard lock(state_->mutex);
  return state_->handlings;
}

std::vector<std::string> FakeOpenAiServer::requests(std::size_t from) const {
  std::lock_guard lock(state_->mutex);
  const auto& all = state_->requests;
  return {all.begin() + static_cast<std::ptrdiff_t>(std::min(from, all.size())), all.end()};
}

std::size_t FakeOpenAiServer::requestCount() const {
  std::lock_guard lock(state_->mutex);
  return state_->requests.size();
}

}  // namespace gantry::testing
