#pragma once
/// LowLatencySession: a Poco HTTP(S) client session that never waits on delayed ACKs.
///
/// Poco writes a request's header and body with separate send() calls, and servers such as
/// Python's http.server write a response's header and body separately with Nagle's
/// algorithm on. On a kept-alive connection Linux then delays our ACK of the first segment
/// and the peer holds the second until it comes: every call after the first waits for the
/// delayed ACK (bench_nagle). So the socket gets TCP_NODELAY when it connects (Poco connects
/// lazily inside sendRequest(), hence the connect() hook; Poco 1.11 sets it too, this keeps it
/// explicit) and TCP_QUICKACK after every write, which makes the kernel acknowledge the
/// reply's segments at once (the flag is not sticky, so it is set again each time).
///
/// Poco's request stream sends a body 4 KB at a time; sendRequest() below sends it in one
/// write instead of one send, each with its quick-ack, per 4 KB.
///
/// Header-only Poco code with no boundary types: modules and the core each compile their
/// own copy, so it is not part of the module ABI.

#include <Poco/Net/HTTPClientSession.h>
#include <Poco/Net/HTTPRequest.h>
#include <Poco/Net/NetException.h>
#include <Poco/Net/SocketAddress.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <sys/socket.h>

#include <memory>
#include <string_view>
#include <utility>

namespace gantry::net {

/// What a LowLatencySession adds to Poco's sessions, whatever its Base.
class WholeBodySender {
 public:
  virtual ~WholeBodySender() = default;
  /// Sends request (its content length set to the body's) and then body in one write.
  /// Throws Poco::Net::NetException (and what Poco's sendRequest throws) on failure.
  virtual void sendWhole(Poco::Net::HTTPRequest& request, std::string_view body) = 0;
};

/// Base is Poco::Net::HTTPClientSession or Poco::Net::HTTPSClientSession; the constructors
/// are Base's. Same threading rules as Base (one thread at a time).
template <class Base>
class LowLatencySession final : public Base, public WholeBodySender {
 public:
  using Base::Base;

  void sendWhole(Poco::Net::HTTPRequest& request, std::string_view body) override {
    request.setContentLength(static_cast<std::streamsize>(body.size()));
    // Poco buffers the header in the request stream: flushed, it goes first. The body then
    // bypasses that stream (a fixed-length one is not checked for its count).
    this->sendRequest(request).flush();
    for (std::size_t sent = 0; sent < body.size();) {
      int n = write(body.data() + sent, static_cast<std::streamsize>(body.size() - sent));
      if (n <= 0) throw Poco::Net::NetException("short write of the request body");
      sent += static_cast<std::size_t>(n);
    }
  }

 protected:
  void connect(const Poco::Net::SocketAddress& address) override {
    Base::connect(address);
    this->socket().setNoDelay(true);
  }

  int write(const char* buffer, std::streamsize length) override {
    int written = Base::write(buffer, length);
    quickAck();
    return written;
  }

 private:
  // Best effort: a failure only costs latency, never correctness.
  void quickAck() {
    Poco::Net::SocketImpl* impl = this->socket().impl();
    if (impl == nullptr || !impl->initialized()) return;
    int on = 1;
    ::setsockopt(impl->sockfd(), IPPROTO_TCP, TCP_QUICKACK, &on, sizeof on);
  }
};

/// Sends request with body, in one write when session is a LowLatencySession.
inline void sendRequest(Poco::Net::HTTPClientSession& session, Poco::Net::HTTPRequest& request,
                        std::string_view body) {
  if (auto* whole = dynamic_cast<WholeBodySender*>(&session))
    return whole->sendWhole(request, body);
  request.setContentLength(static_cast<std::streamsize>(body.size()));
  session.sendRequest(request).write(body.data(), static_cast<std::streamsize>(body.size()));
}

/// A LowLatencySession<Base> built from Base's constructor arguments, owned by the caller.
template <class Base, class... Args>
std::unique_ptr<Poco::Net::HTTPClientSession> makeLowLatencySession(Args&&... args) {
  return std::make_unique<LowLatencySession<Base>>(std::forward<Args>(args)...);
}

}  // namespace gantry::net
