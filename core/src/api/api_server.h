#pragma once
/// ApiServer: the local API (DESIGN 11), off unless API_LISTEN is set. Poco's HTTP server on a
/// loopback address or a unix socket, each connection's head under a deadline (HeadGate); every
/// request is checked (Host/Origin, then the bearer token, then the rate: failed tokens in one
/// bucket per client, each valid token in its own) before its body (at most 1 MB) is read.
/// Endpoints:
///   POST /task                         a stateless task turn (TaskService)
///   POST /notify {"text","level"?}     a message to the owner's chat
///   GET  /approvals                    pending approvals   } with API_APPROVE_TOKEN only
///   POST /approvals/ID/approve|deny    decide one (`api`)  }
///   GET  /status                       the instance's facts as JSON
///   /mcp                               the same as an MCP server (McpEndpoint)
/// Errors are JSON {"error": "…"} with a fitting status code.

#include <Poco/ThreadPool.h>

#include <functional>
#include <memory>
#include <string>

#include "api/head_gate.h"
#include "api/http_guard.h"
#include "api/listen_address.h"
#include "api/mcp_endpoint.h"
#include "api/task_service.h"
#include "approvals/approvals.h"
#include "gantry/channel.h"

namespace Poco::Net {
class HTTPServerRequest;
class HTTPServerResponse;
}  // namespace Poco::Net

namespace gantry::api {

struct ApiOptions {
  ListenAddress listen;
  std::string token;
  std::string approve_token;  ///< empty: the approval endpoints answer 403
  std::string owner_chat;     ///< for /notify
  int threads = 8;            ///< for requests; the server adds threads for slow heads (HeadGate)
  std::size_t max_body = 1 << 20;
};

struct ApiParts {
  TaskService& tasks;
  approvals::Approvals& approvals;
  Channel& channel;                     ///< the redacting channel
  std::function<std::string()> status;  ///< a JSON object
};

class ApiServer {
 public:
  /// Binds and starts serving; the error names API_LISTEN when the address cannot be bound.
  static Result<std::unique_ptr<ApiServer>> start(ApiOptions options, ApiParts parts);
  ~ApiServer();
  ApiServer(const ApiServer&) = delete;
  ApiServer& operator=(const ApiServer&) = delete;
  /// Stops accepting, answers each request in flight and waits for its thread (tasks are
  /// cancelled by their service first); idle kept-alive connections are closed.
  void stop();

  /// Handles one request (on a server thread).
  void handle(Poco::Net::HTTPServerRequest& request, Poco::Net::HTTPServerResponse& response);

 private:
  ApiServer(ApiOptions options, ApiParts parts);
  struct Reply;
  Reply route(const std::string& method, const std::string& path, const std::string& body,
              bool approver);
  Reply postTask(const std::string& body);
  Reply postNotify(const std::string& body);
  Reply approvalsList();
  Reply decide(const std::string& id, bool approve);
  Status notifyOwner(const std::string& text);

  ApiOptions options_;
  ApiParts parts_;
  RateLimiter limiter_{10, 20};  ///< per valid token
  RateLimiter failures_{1, 10};  ///< per client, requests with no valid token
  McpEndpoint mcp_;
  // The server's own threads: stop() waits for them, so no handler outlives this object.
  HeadGate gate_;
  Poco::ThreadPool pool_;
  std::unique_ptr<GatedHttpServer> server_;
};

}  // namespace gantry::api
