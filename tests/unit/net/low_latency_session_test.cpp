#include "gantry/net/low_latency_session.h"

#include <Poco/Net/HTTPRequest.h>
#include <Poco/Net/HTTPRequestHandler.h>
#include <Poco/Net/HTTPRequestHandlerFactory.h>
#include <Poco/Net/HTTPResponse.h>
#include <Poco/Net/HTTPServer.h>
#include <Poco/Net/HTTPServerRequest.h>
#include <Poco/Net/HTTPServerResponse.h>
#include <Poco/Net/ServerSocket.h>
#include <Poco/StreamCopier.h>

#include <catch2/catch.hpp>
#include <string>

#include "fakes/stop_promptly.h"

namespace {

using Poco::Net::HTTPClientSession;

class EchoHandler final : public Poco::Net::HTTPRequestHandler {
 public:
  void handleRequest(Poco::Net::HTTPServerRequest& request,
                     Poco::Net::HTTPServerResponse& response) override {
    std::string body;
    Poco::StreamCopier::copyToString(request.stream(), body);
    response.setContentLength(static_cast<std::streamsize>(body.size()));
    response.send() << body;
  }
};

class EchoFactory final : public Poco::Net::HTTPRequestHandlerFactory {
 public:
  Poco::Net::HTTPRequestHandler* createRequestHandler(
      const Poco::Net::HTTPServerRequest&) override {
    return new EchoHandler;
  }
};

/// A loopback HTTP/1.1 server with keep-alive that echoes request bodies.
class EchoServer {
 public:
  EchoServer() : server_(new EchoFactory, Poco::Net::ServerSocket(0), params()) { server_.start(); }
  ~EchoServer() {
    gantry::testing::wakeAcceptLoop(server_);
    server_.stop();
  }
  Poco::UInt16 port() const { return server_.port(); }

 private:
  static Poco::Net::HTTPServerParams::Ptr params() {
    Poco::Net::HTTPServerParams::Ptr params = new Poco::Net::HTTPServerParams;
    params->setKeepAlive(true);
    return params;
  }
  Poco::Net::HTTPServer server_;
};

int socketOption(HTTPClientSession& session, int option) {
  int value = 0;
  socklen_t size = sizeof value;
  ::getsockopt(session.socket().impl()->sockfd(), IPPROTO_TCP, option, &value, &size);
  return value;
}

// Sends a POST and flushes its body; the reply is left unread.
void sendPost(HTTPClientSession& session, const std::string& body) {
  Poco::Net::HTTPRequest request(Poco::Net::HTTPRequest::HTTP_POST, "/",
                                 Poco::Net::HTTPRequest::HTTP_1_1);
  request.setKeepAlive(true);
  request.setContentLength(static_cast<std::streamsize>(body.size()));
  session.sendRequest(request) << body << std::flush;
}

std::string readReply(HTTPClientSession& session) {
  Poco::Net::HTTPResponse response;
  std::string body;
  Poco::StreamCopier::copyToString(session.receiveResponse(response), body);
  return body;
}

}  // namespace

TEST_CASE("a low-latency session turns Nagle off once it connects", "[net]") {
  EchoServer server;
  auto session = gantry::net::makeLowLatencySession<HTTPClientSession>("127.0.0.1", server.port());
  session->setKeepAlive(true);
  sendPost(*session, "ping");
  CHECK(socketOption(*session, TCP_NODELAY) == 1);
  CHECK(readReply(*session) == "ping");
}

TEST_CASE("a low-latency session asks for quick ACKs after each request on a reused connection",
          "[net]") {
  EchoServer server;
  auto session = gantry::net::makeLowLatencySession<HTTPClientSession>("127.0.0.1", server.port());
  session->setKeepAlive(true);
  for (int call = 0; call < 3; ++call) {
    std::string body = "call " + std::to_string(call);
    sendPost(*session, body);
    // Without it, a request sent right after a reply puts the socket in delayed-ACK mode.
    CHECK(socketOption(*session, TCP_QUICKACK) == 1);
    CHECK(readReply(*session) == body);
  }
}

TEST_CASE("a request body sent in one write arrives whole, and the connection is reused", "[net]") {
  EchoServer server;
  auto session = gantry::net::makeLowLatencySession<HTTPClientSession>("127.0.0.1", server.port());
  session->setKeepAlive(true);
  for (int call = 0; call < 2; ++call) {
    std::string body(300 * 1024 + call, static_cast<char>('a' + call));  // ~75 of Poco's chunks
    Poco::Net::HTTPRequest request(Poco::Net::HTTPRequest::HTTP_POST, "/",
                                   Poco::Net::HTTPRequest::HTTP_1_1);
    request.setKeepAlive(true);
    gantry::net::sendRequest(*session, request, body);
    CHECK(socketOption(*session, TCP_QUICKACK) == 1);
    CHECK(readReply(*session) == body);
  }
}
