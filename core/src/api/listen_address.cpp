#include "api/listen_address.h"

#include <charconv>

namespace gantry::api {

Result<ListenAddress> parseListenAddress(const std::string& text) {
  auto bad = [&](const std::string& why) {
    return Status::error("API_LISTEN: \"" + text + "\" " + why);
  };
  ListenAddress address;
  if (text.rfind("unix:", 0) == 0) {
    address.unix_path = text.substr(5);
    if (address.unix_path.empty() || address.unix_path.front() != '/') {
      return bad("needs an absolute socket path (unix:/run/gantry/NAME.sock)");
    }
    return address;
  }
  auto colon = text.rfind(':');
  if (colon == std::string::npos) return bad("is not HOST:PORT or unix:PATH");
  std::string host = text.substr(0, colon), port = text.substr(colon + 1);
  if (host == "[::1]") {
    address.host = "::1";
  } else if (host == "127.0.0.1" || host == "localhost") {
    address.host = "127.0.0.1";
  } else {
    return bad(
        "is not a loopback address: the local API listens on 127.0.0.1, [::1] or a unix "
        "socket only");
  }
  unsigned value = 0;
  auto [end, ec] = std::from_chars(port.data(), port.data() + port.size(), value);
  if (ec != std::errc{} || end != port.data() + port.size() || value == 0 || value > 65535) {
    return bad("has no port in 1..65535");
  }
  address.port = static_cast<uint16_t>(value);
  return address;
}

}  // namespace gantry::api
