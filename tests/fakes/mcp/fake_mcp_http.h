#pragma once
// FakeMcpHttp: a Streamable HTTP MCP server on 127.0.0.1:<ephemeral> following the
// transport rules of the specification: POST with Accept of both JSON and SSE, session id
// issued at initialize and required afterwards (404 for an unknown one, 400 when missing),
// MCP-Protocol-Version required after initialize, 202 for notifications, DELETE ends a
// session. Tools: echo (JSON answer), echo_sse (answer on an SSE stream after a progress
// notification) and echo_resume (an SSE stream that ends after a priming event with an id
// and a retry delay; the answer comes on the GET that resumes after that id). A GET without
// Last-Event-ID is the standing stream for server-initiated messages (push()), unless
// refuseGet() makes GET answer 405 as a server without one does. drop_sse ends its stream
// with no answer and no event id.

#include <Poco/Net/HTTPServer.h>
#include <Poco/ThreadPool.h>

#include <chrono>
#include <condition_variable>
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
  /// The same endpoint as a URL with no path at all (http://127.0.0.1:PORT).
  std::string rootUrl() const;
  /// port() as a number, for URLs with another host name.
  int port() const;
  /// GET answers 405 Method Not Allowed.
  void refuseGet();
  /// Sends a message on every open standing GET stream.
  void push(const std::string& message);
  /// The retry: delay echo_resume's stream asks for.
  void setRetryMs(int ms);
  /// Forgets every session, as a restarted server would (next requests get 404).
  void expireSessions();

  struct Record {
    std::vector<std::string> authorizations;  ///< Authorization header of every POST
    std::vector<std::string> methods;         ///< JSON-RPC methods in order
    std::vector<std::string> deleted;         ///< session ids ended with DELETE
    int initializes = 0;
    int not_found = 0;  ///< 404s answered
    std::string last_protocol_header;
    std::vector<std::string> targets;         ///< request target of every request
    std::vector<std::string> hosts;           ///< Host header of every request
    int gets = 0;                             ///< GET requests
    std::vector<std::string> last_event_ids;  ///< Last-Event-ID of every GET that had one
    int open_streams = 0;                     ///< standing GET streams open now
    /// Milliseconds from the end of an echo_resume stream to the GET that resumed it.
    std::vector<long> resume_gaps_ms;
  };
  Record record() const;

  // Used by the request handler.
  struct State {
    mutable std::mutex mutex;
    std::set<std::string> sessions;
    int next_session = 1;
    Record record;
    bool refuse_get = false;
    bool stopping = false;
    int retry_ms = 300;
    int next_event = 1;
    std::map<std::string, std::string> held;  ///< answers by the event id a GET resumes after
    std::map<std::string, std::chrono::steady_clock::time_point> closed_at;
    std::vector<std::string> pushed;
    std::condition_variable changed;
  };

 private:
  std::shared_ptr<State> state_;
  /// The server's own threads, joined when it stops: a connection of the default pool could
  /// still be ending after the test, and release buffers to Poco's static pools after exit.
  Poco::ThreadPool threads_{1, 16};
  std::unique_ptr<Poco::Net::HTTPServer> server_;
};

}  // namespace gantry::testing
