#pragma once
/// Internals of FakeOpenAiServer shared by its source files.

#include <chrono>
#include <condition_variable>
#include <deque>
#include <fstream>
#include <mutex>
#include <string>
#include <vector>

#include "Poco/JSON/Object.h"
#include "Poco/Net/HTTPServerResponse.h"
#include "fake_openai_server.h"

namespace gantry::testing {

/// Shared by the server object and its request handlers.
struct FakeOpenAiServer::State {
  std::mutex mutex;
  std::condition_variable wake;
  bool stopping = false;
  std::deque<ScriptedReply> script;
  Responder responder;
  std::vector<std::string> requests;
  std::ofstream requests_log;
  std::string api_key;
  std::uint16_t port = 0;
  int served = 0;
  std::vector<FakeOpenAiServer::Handling> handlings;

  /// Sleeps up to ms; returns early (false) when the server is stopping.
  bool sleepFor(int ms) {
    std::unique_lock lock(mutex);
    return !wake.wait_for(lock, std::chrono::milliseconds(ms), [this] { return stopping; });
  }
};

/// What the fake took from a valid request.
struct ParsedRequest {
  std::string model;
  bool stream = false;
  bool include_usage = false;
  std::string last_user_text;
  std::size_t body_size = 0;
};

/// A request the fake refuses the way the real API does: HTTP 400 with this message.
struct RequestError {
  std::string message;
  std::string param;  ///< "" for null
};

/// Validates a chat-completions body (JSON object, model, messages, tool-call pairing).
/// Returns the error, or fills *out and returns nullopt.
std::optional<RequestError> validateRequest(const std::string& body, ParsedRequest* out);

/// Sends a complete body with Content-Length (so the connection may stay open).
void sendBody(Poco::Net::HTTPServerResponse& response, const std::string& content_type,
              const std::string& body);

/// Sends an OpenAI-style error body {"error":{message,type,param,code}}.
void sendError(Poco::Net::HTTPServerResponse& response, int status, const std::string& message,
               const std::string& param = "", int retry_after = -1);

/// Sends a chat.completion object for reply.
void sendCompletion(Poco::Net::HTTPServerResponse& response, const ParsedRequest& request,
                    const ScriptedReply& reply, int serial);

/// Streams reply as chat.completion.chunk events ending in data: [DONE].
void sendStream(Poco::Net::HTTPServerResponse& response, const ParsedRequest& request,
                const ScriptedReply& reply, int serial, FakeOpenAiServer::State& state);

}  // namespace gantry::testing
