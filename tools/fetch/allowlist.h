#pragma once
/// The exact-host allowlist of gantry-fetch. `--allow example.com` matches that host only, on
/// the scheme's default port (80, 443); `--allow example.com:8443` that host on that port;
/// `--allow *.example.com` its subdomains (not example.com itself); `--allow [::1]:8080` an
/// IPv6 literal with a port; and `--allow nas.lan=192.168.1.0/24` also lets that one host
/// resolve into that special block. Pure.

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "fetch/special_addresses.h"
#include "gantry/status.h"

namespace gantry::fetch {

/// One --allow entry.
struct AllowRule {
  std::string host;                   ///< lower case, no trailing dot; "*.x" for subdomains of x
  std::optional<std::uint16_t> port;  ///< none: the scheme's default port only
  std::vector<Block> private_ranges;  ///< special blocks this host may resolve into
};

class Allowlist final {
 public:
  /// Parses --allow values; fails naming the first malformed one.
  static Result<Allowlist> parse(const std::vector<std::string>& entries);

  /// The rule matching host (already normalised) on port, or nullptr: not on the list. A rule
  /// without a port matches default_port only.
  const AllowRule* match(const std::string& host, std::uint16_t port,
                         std::uint16_t default_port) const;
  /// True when some rule names host, whatever its port.
  bool listsHost(const std::string& host) const;

  bool empty() const { return rules_.empty(); }

 private:
  std::vector<AllowRule> rules_;
};

/// Lower case without a trailing dot: the form hosts are compared in.
std::string normaliseHost(const std::string& host);

}  // namespace gantry::fetch
