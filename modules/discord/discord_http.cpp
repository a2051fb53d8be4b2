#include "discord_http.h"

#include <Poco/Exception.h>
#include <Poco/Net/Context.h>
#include <Poco/Net/HTTPSClientSession.h>
#include <Poco/Net/NetSSL.h>

#include "gantry/net/low_latency_session.h"

namespace gantry::discord {
namespace {

Poco::Net::Context::Ptr tlsContext() {
  static Poco::Net::Context::Ptr context = [] {
    Poco::Net::initializeSSL();
    return Poco::Net::Context::Ptr(
        new Poco::Net::Context(Poco::Net::Context::TLS_CLIENT_USE, "", "", "",
                               Poco::Net::Context::VERIFY_RELAXED, 9, true));
  }();
  return context;
}

}  // namespace

std::unique_ptr<Poco::Net::HTTPClientSession> makeSession(const Poco::URI& uri) {
  const std::string& scheme = uri.getScheme();
  // Poco's URI knows no well-known port for ws/wss.
  bool tls = scheme == "https" || scheme == "wss";
  Poco::UInt16 port = uri.getPort() != 0 ? uri.getPort() : (tls ? 443 : 80);
  if (tls) {
    return net::makeLowLatencySession<Poco::Net::HTTPSClientSession>(uri.getHost(), port,
                                                                     tlsContext());
  }
  if (scheme == "http" || scheme == "ws") {
    return net::makeLowLatencySession<Poco::Net::HTTPClientSession>(uri.getHost(), port);
  }
  throw Poco::InvalidArgumentException("unsupported URL scheme", uri.toString());
}

std::string pathAndQuery(const Poco::URI& uri) {
  std::string target = uri.getPathAndQuery();
  return target.empty() ? "/" : target;
}

}  // namespace gantry::discord
