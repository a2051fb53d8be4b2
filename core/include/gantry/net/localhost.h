#pragma once
/// Names that are loopback by definition (RFC 6761: "localhost" and every name under it),
/// whatever a resolver says; a minimal system may not even have an /etc/hosts to say it.

#include <string_view>

namespace gantry::net {

inline bool isLocalhostName(std::string_view host) {
  constexpr std::string_view kSuffix = ".localhost";
  return host == "localhost" ||
         (host.size() > kSuffix.size() && host.substr(host.size() - kSuffix.size()) == kSuffix);
}

}  // namespace gantry::net
