#pragma once
/// HeadGate: how the local API keeps answering while clients are slow. Poco's HTTP server
/// reads a request head with a timeout per receive only, so a client sending one header line
/// every few seconds holds a server thread for as long as it likes; eight of them held every
/// thread. Each connection therefore passes this gate before Poco reads it:
///   - the whole head must arrive within a deadline (a few seconds) — it is only peeked, so
///     Poco still parses it — or the connection is closed;
///   - a connection whose head has not arrived after a short grace counts as slow, and only a
///     few slow connections wait at once, per peer and in all (loopback spans 127.0.0.0/8, so
///     the total matters too); one more is closed at once.
/// The server's pool has threads for the slow ones besides those for requests, so slow clients
/// and running tasks together cannot take the thread a `/status` needs. Keep-alive is off:
/// every request opens its connection and so passes the gate.

#include <Poco/Net/HTTPRequestHandlerFactory.h>
#include <Poco/Net/HTTPServerParams.h>
#include <Poco/Net/ServerSocket.h>
#include <Poco/Net/StreamSocket.h>
#include <Poco/Net/TCPServer.h>
#include <Poco/ThreadPool.h>

#include <chrono>
#include <map>
#include <memory>
#include <mutex>
#include <string>

namespace gantry::api {

struct GateLimits {
  std::chrono::milliseconds head_deadline{3000};  ///< for the whole request head
  /// A loopback client's head arrives well within this, even on a loaded machine.
  std::chrono::milliseconds grace{500};
  int slow_per_peer = 2;            ///< slow connections waiting at once, per peer address
  int slow_total = 4;               ///< and in all (the threads kept for them)
  std::size_t max_head = 16 << 10;  ///< a longer head is refused
};

/// Thread-safe; called on the server's threads.
class HeadGate {
 public:
  explicit HeadGate(GateLimits limits) : limits_(limits) {}
  const GateLimits& limits() const { return limits_; }
  /// Waits (blocking this server thread, at most the deadline) until socket holds a whole
  /// request head. False when the deadline passed, the head is too long, the peer closed or
  /// too many slow connections already wait; the caller then closes the connection.
  bool admit(Poco::Net::StreamSocket& socket, const std::string& peer);

 private:
  enum class Head { kComplete, kPending, kRefused };
  Head waitForHead(Poco::Net::StreamSocket& socket, std::chrono::steady_clock::time_point until);
  bool enterSlow(const std::string& peer);
  void leaveSlow(const std::string& peer);

  GateLimits limits_;
  std::mutex mutex_;
  int slow_ = 0;
  std::map<std::string, int> slow_by_peer_;
};

/// A request handler factory whose stop can be told to its connections (Poco keeps that event
/// for its own HTTPServer).
class GatedRequestHandlerFactory : public Poco::Net::HTTPRequestHandlerFactory {
 public:
  /// Each connection answers the request it is handling, then closes.
  void announceStop() { serverStopped(this, false); }
};

/// Poco's HTTP server with every connection passing gate first (HTTPServer itself cannot take
/// another connection factory). Takes ownership of factory; pool and gate are not owned and
/// outlive it.
class GatedHttpServer {
 public:
  /// Starts serving socket on pool; params' keep-alive is turned off (see HeadGate).
  GatedHttpServer(GatedRequestHandlerFactory* factory, Poco::ThreadPool& pool,
                  const Poco::Net::ServerSocket& socket, Poco::Net::HTTPServerParams::Ptr params,
                  HeadGate& gate);
  GatedHttpServer(const GatedHttpServer&) = delete;
  GatedHttpServer& operator=(const GatedHttpServer&) = delete;
  /// Stops accepting; a request being handled is answered before its socket closes (as
  /// HTTPServer::stopAll(false)). The caller then joins the pool, then destroys this.
  void stop();

 private:
  GatedRequestHandlerFactory* stopper_;                ///< the factory, to announce the stop
  Poco::Net::HTTPRequestHandlerFactory::Ptr factory_;  ///< owns it, shared with connections
  std::unique_ptr<Poco::Net::TCPServer> server_;
};

}  // namespace gantry::api
