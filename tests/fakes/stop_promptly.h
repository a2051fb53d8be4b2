#pragma once

#include "Poco/Net/TCPServer.h"

namespace gantry::testing {

/// Ends the accept loop of `server` now; call it just before stop() or stopAll(). Poco's
/// accept loop notices stop() only when its 250 ms poll ends, which made every fake server's
/// stop, and so nearly every test, a quarter of a second longer; a listening socket shut down
/// ends that poll at once. The server accepts nothing afterwards. Owner's thread only.
inline void wakeAcceptLoop(const Poco::Net::TCPServer& server) {
  server.socket().impl()->shutdown();
}

}  // namespace gantry::testing
