#pragma once
/// HTTP(S) sessions for the REST client and the Gateway's WebSocket upgrade.

#include <Poco/Net/HTTPClientSession.h>
#include <Poco/URI.h>

#include <memory>

namespace gantry::discord {

/// A session for uri's scheme (http/ws plain, https/wss TLS with the system CAs and peer
/// verification). Throws Poco exceptions on unknown schemes.
std::unique_ptr<Poco::Net::HTTPClientSession> makeSession(const Poco::URI& uri);

/// "/path?query" of uri, "/" when empty.
std::string pathAndQuery(const Poco::URI& uri);

}  // namespace gantry::discord
