#pragma once
// FakeMcpHttp: a Streamable HTTP MCP server on 127.0.0.1:<ephemeral> following the
// transport rules of the specification: POST with Accept of both JSON and SSE, session id
// issued at initialize and required afterwards (404 for an unknown one, 400 when missing),
// MCP-Protocol-Version required after initialize, 202 for notifications, DELETE ends a
// session. Tools: echo (JSON answer) and echo_sse (answer on an SSE stream after a
// progress notification).

#include <Poco/Net/HTTPServer.h>

#include <map>
#include <memory>
#include <mutex>
#include <set>
#include <string>
#include <vector>

namespace gantry::testing {

class FakeMcpHttp {
 public:
  FakeMcpHttp();
  ~FakeMcpHttp();

  std::string url() const;
  /// Forgets every session, as a restarted server would (next requests get 404).
  void expireSessions();

  struct Record {
    std::vector<std::string> authorizations;  ///< Authorization header of every POST
    std::vector<std::string> methods;         ///< JSON-RPC methods in order
    std::vector<std::string> deleted;         ///< session ids ended with DELETE
    int initializes = 0;
    int not_found = 0;  ///< 404s answered
    std::string last_protocol_header;
  };
  Record record() const;

  // Used by the request handler.
  struct State {
    mutable std::mutex mutex;
    std::set<std::string> sessions;
    int next_session = 1;
    Record record;
  };

 private:
  std::shared_ptr<State> state_;
  std::unique_ptr<Poco::Net::HTTPServer> server_;
};

}  // namespace gantry::testing
