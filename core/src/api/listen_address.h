#pragma once
/// API_LISTEN: where the local API listens — a loopback TCP address or a unix socket, never
/// anything reachable from another host.

#include <cstdint>
#include <string>

#include "gantry/status.h"

namespace gantry::api {

struct ListenAddress {
  std::string host;  ///< "127.0.0.1" or "::1"; empty for a unix socket
  uint16_t port = 0;
  std::string unix_path;  ///< set for unix:PATH
};

/// Parses `127.0.0.1:PORT`, `[::1]:PORT`, `localhost:PORT` or `unix:/PATH`. Any other host
/// (0.0.0.0, a LAN address, a name) is an error saying the API is loopback only.
Result<ListenAddress> parseListenAddress(const std::string& text);

}  // namespace gantry::api
