#include "api/head_gate.h"

#include <Poco/Net/HTTPServerConnection.h>
#include <Poco/Net/TCPServerConnectionFactory.h>
#include <sys/socket.h>

#include <cerrno>
#include <string_view>
#include <thread>
#include <vector>

namespace gantry::api {
namespace {

using Clock = std::chrono::steady_clock;

/// What a peek found: the bytes waiting, or -1 when the peer closed or the socket failed.
long peekInto(Poco::Net::StreamSocket& socket, std::vector<char>* buffer) {
  auto n = ::recv(socket.impl()->sockfd(), buffer->data(), buffer->size(), MSG_PEEK | MSG_DONTWAIT);
  if (n > 0) return n;
  if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK || errno == EINTR)) return 0;
  return -1;
}

bool headEnds(std::string_view bytes) {
  // Poco takes a bare LF as a line end too.
  return bytes.find("\n\r\n") != std::string_view::npos ||
         bytes.find("\n\n") != std::string_view::npos;
}

std::string peerOf(const Poco::Net::StreamSocket& socket) {
  try {
    return socket.peerAddress().host().toString();
  } catch (const Poco::Exception&) {
    return "local";  // a unix socket
  }
}

class GatedConnection final : public Poco::Net::TCPServerConnection {
 public:
  GatedConnection(const Poco::Net::StreamSocket& socket, HeadGate& gate,
                  Poco::Net::HTTPServerParams::Ptr params,
                  Poco::Net::HTTPRequestHandlerFactory::Ptr factory)
      : TCPServerConnection(socket),
        gate_(gate),
        params_(std::move(params)),
        factory_(std::move(factory)) {}
  // Exceptions are caught by TCPServerConnection::start(), which calls this.
  void run() override {
    if (!gate_.admit(socket(), peerOf(socket()))) {
      socket().close();
      return;
    }
    Poco::Net::HTTPServerConnection http(socket(), params_, factory_);
    http.run();
  }

 private:
  HeadGate& gate_;
  Poco::Net::HTTPServerParams::Ptr params_;
  Poco::Net::HTTPRequestHandlerFactory::Ptr factory_;
};

class GatedFactory final : public Poco::Net::TCPServerConnectionFactory {
 public:
  GatedFactory(HeadGate& gate, Poco::Net::HTTPServerParams::Ptr params,
               Poco::Net::HTTPRequestHandlerFactory::Ptr factory)
      : gate_(gate), params_(std::move(params)), factory_(std::move(factory)) {}
  Poco::Net::TCPServerConnection* createConnection(const Poco::Net::StreamSocket& socket) override {
    return new GatedConnection(socket, gate_, params_, factory_);
  }

 private:
  HeadGate& gate_;
  Poco::Net::HTTPServerParams::Ptr params_;
  Poco::Net::HTTPRequestHandlerFactory::Ptr factory_;
};

}  // namespace

HeadGate::Head HeadGate::waitForHead(Poco::Net::StreamSocket& socket, Clock::time_point until) {
  std::vector<char> buffer(limits_.max_head + 1);
  constexpr auto kStep = std::chrono::milliseconds(20);
  for (;;) {
    long n = peekInto(socket, &buffer);
    if (n < 0) return Head::kRefused;
    // The peek may hold the start of the body too: the head's end is looked for first.
    if (headEnds({buffer.data(), static_cast<std::size_t>(n)})) return Head::kComplete;
    if (static_cast<std::size_t>(n) > limits_.max_head) return Head::kRefused;
    auto now = Clock::now();
    if (now >= until) return Head::kPending;
    if (n == 0) {  // nothing yet: wait for the first bytes
      socket.poll(Poco::Timespan(
                      std::chrono::duration_cast<std::chrono::microseconds>(until - now).count()),
                  Poco::Net::Socket::SELECT_READ | Poco::Net::Socket::SELECT_ERROR);
    } else {
      // A peek leaves the bytes in place, so poll() would report them again at once: an
      // incomplete head is looked at again after a short sleep instead.
      std::this_thread::sleep_for(std::min<Clock::duration>(kStep, until - now));
    }
  }
}

bool HeadGate::admit(Poco::Net::StreamSocket& socket, const std::string& peer) {
  auto start = Clock::now();
  Head head = waitForHead(socket, start + limits_.grace);
  if (head != Head::kPending) return head == Head::kComplete;
  if (!enterSlow(peer)) return false;
  head = waitForHead(socket, start + limits_.head_deadline);
  leaveSlow(peer);
  return head == Head::kComplete;
}

bool HeadGate::enterSlow(const std::string& peer) {
  std::lock_guard lock(mutex_);
  int& mine = slow_by_peer_[peer];
  if (slow_ >= limits_.slow_total || mine >= limits_.slow_per_peer) {
    if (mine == 0) slow_by_peer_.erase(peer);
    return false;
  }
  ++slow_;
  ++mine;
  return true;
}

void HeadGate::leaveSlow(const std::string& peer) {
  std::lock_guard lock(mutex_);
  --slow_;
  if (--slow_by_peer_[peer] == 0) slow_by_peer_.erase(peer);
}

GatedHttpServer::GatedHttpServer(GatedRequestHandlerFactory* factory, Poco::ThreadPool& pool,
                                 const Poco::Net::ServerSocket& socket,
                                 Poco::Net::HTTPServerParams::Ptr params, HeadGate& gate)
    : stopper_(factory), factory_(factory) {
  params->setKeepAlive(false);
  server_ = std::make_unique<Poco::Net::TCPServer>(new GatedFactory(gate, params, factory_), pool,
                                                   socket, params);
  server_->start();
}

void GatedHttpServer::stop() {
  if (!server_) return;
  server_->stop();
  // What HTTPServer::stopAll(false) does: each connection answers its request, then closes.
  stopper_->announceStop();
}

}  // namespace gantry::api
