#pragma once
/// LowLatencySession: a Poco HTTP(S) client session that never waits on delayed ACKs.
///
/// Poco writes a request's header and body with separate send() calls, and servers such as
/// Python's http.server write a response's header and body separately with Nagle's
/// algorithm on. On a kept-alive connection Linux then delays our ACK of the first segment
/// (~40 ms) and the peer holds the second until it comes: every call after the first costs
/// 40-50 ms. So the socket gets TCP_NODELAY when it connects (Poco connects lazily inside
/// sendRequest(), hence the connect() hook; Poco 1.11 sets it too, this keeps it explicit)
/// and TCP_QUICKACK after every write, which makes the kernel acknowledge the reply's
/// segments at once (the flag is not sticky, so it is set again each time).
///
/// Header-only Poco code with no boundary types: modules and the core each compile their
/// own copy, so it is not part of the module ABI.

#include <Poco/Net/HTTPClientSession.h>
#include <Poco/Net/SocketAddress.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <sys/socket.h>

#include <memory>
#include <utility>

namespace gantry::net {

/// Base is Poco::Net::HTTPClientSession or Poco::Net::HTTPSClientSession; the constructors
/// are Base's. Same threading rules as Base (one thread at a time).
template <class Base>
class LowLatencySession final : public Base {
 public:
  using Base::Base;

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

/// A LowLatencySession<Base> built from Base's constructor arguments, owned by the caller.
template <class Base, class... Args>
std::unique_ptr<Poco::Net::HTTPClientSession> makeLowLatencySession(Args&&... args) {
  return std::make_unique<LowLatencySession<Base>>(std::forward<Args>(args)...);
}

}  // namespace gantry::net
