#pragma once
/// Name to addresses for gantry-fetch. The URL's host is never handed to a library that
/// would look it up again: it is resolved here once, every address is checked, and the
/// connection goes to a checked address.

#include <map>
#include <string>
#include <vector>

#include "fetch/special_addresses.h"
#include "gantry/status.h"

namespace gantry::fetch {

/// A host written as an address, in any form the C library would accept for a connection
/// (IPv6 literal; IPv4 dotted, decimal, octal or hex as inet_aton reads them), or nullopt
/// for a name.
std::optional<IpAddress> numericHost(const std::string& host);

/// Resolves names: through fixed entries first (`--hosts FILE`, "name address..." lines,
/// for tests and pinning), then the system resolver (getaddrinfo). Thread-compatible.
class HostResolver final {
 public:
  /// Loads entries from a hosts-style file; an empty path means none.
  static Result<HostResolver> load(const std::string& hosts_file);

  /// Every address host has (a numeric host is its own address). Fails when there is none.
  Result<std::vector<IpAddress>> resolve(const std::string& host) const;

 private:
  std::map<std::string, std::vector<IpAddress>> fixed_;
};

}  // namespace gantry::fetch
