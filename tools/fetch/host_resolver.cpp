#include "fetch/host_resolver.h"

#include <arpa/inet.h>
#include <netdb.h>
#include <sys/socket.h>

#include <cstring>
#include <fstream>
#include <sstream>

#include "fetch/allowlist.h"
#include "gantry/net/localhost.h"

namespace gantry::fetch {
namespace {

IpAddress fromSockaddr(const sockaddr* sa) {
  IpAddress out;
  if (sa->sa_family == AF_INET6) {
    out.v6 = true;
    std::memcpy(out.bytes.data(), &reinterpret_cast<const sockaddr_in6*>(sa)->sin6_addr, 16);
  } else {
    std::memcpy(out.bytes.data(), &reinterpret_cast<const sockaddr_in*>(sa)->sin_addr, 4);
  }
  return out;
}

Result<std::vector<IpAddress>> systemResolve(const std::string& host) {
  addrinfo hints{};
  hints.ai_family = AF_UNSPEC;
  hints.ai_socktype = SOCK_STREAM;
  addrinfo* list = nullptr;
  const int rc = ::getaddrinfo(host.c_str(), nullptr, &hints, &list);
  if (rc != 0) return Status::retry("cannot resolve " + host + ": " + ::gai_strerror(rc));
  std::vector<IpAddress> out;
  for (const addrinfo* ai = list; ai != nullptr; ai = ai->ai_next) {
    if (ai->ai_family == AF_INET || ai->ai_family == AF_INET6)
      out.push_back(fromSockaddr(ai->ai_addr));
  }
  ::freeaddrinfo(list);
  if (out.empty()) return Status::retry("cannot resolve " + host + ": no addresses");
  return out;
}

Status notAnAddress(const std::string& hosts_file, const std::string& word) {
  return Status::error("--hosts " + hosts_file + ": '" + word + "' is not an address");
}

}  // namespace

std::optional<IpAddress> numericHost(const std::string& host) {
  IpAddress out;
  out.v6 = true;
  if (::inet_pton(AF_INET6, host.c_str(), out.bytes.data()) == 1) return out;
  out.v6 = false;
  in_addr v4{};
  if (::inet_aton(host.c_str(), &v4) == 1) {
    std::memcpy(out.bytes.data(), &v4, 4);
    return out;
  }
  return std::nullopt;
}

Result<HostResolver> HostResolver::load(const std::string& hosts_file) {
  HostResolver resolver;
  if (hosts_file.empty()) return resolver;
  std::ifstream in(hosts_file);
  if (!in) return Status::error("--hosts " + hosts_file + ": cannot be read");
  std::string line;
  while (std::getline(in, line)) {
    std::istringstream words(line.substr(0, line.find('#')));
    std::string name, address;
    if (!(words >> name)) continue;
    while (words >> address) {
      auto ip = IpAddress::parse(address);
      if (!ip) return notAnAddress(hosts_file, address);
      resolver.fixed_[normaliseHost(name)].push_back(*ip);
    }
  }
  return resolver;
}

Result<std::vector<IpAddress>> HostResolver::resolve(const std::string& host) const {
  if (auto ip = numericHost(host)) return std::vector<IpAddress>{*ip};
  if (auto it = fixed_.find(host); it != fixed_.end()) return it->second;
  if (net::isLocalhostName(host)) {  // never looked up
    return std::vector<IpAddress>{*IpAddress::parse("127.0.0.1"), *IpAddress::parse("::1")};
  }
  return systemResolve(host);
}

}  // namespace gantry::fetch
