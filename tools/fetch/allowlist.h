#pragma once
/// The exact-host allowlist of gantry-fetch. `--allow example.com` matches that host only;
/// `--allow *.example.com` matches its subdomains (not example.com itself); and
/// `--allow nas.lan=192.168.1.0/24` also lets that one host resolve into that special block.
/// Pure.

#include <optional>
#include <string>
#include <vector>

#include "fetch/special_addresses.h"
#include "gantry/status.h"

namespace gantry::fetch {

/// One --allow entry.
struct AllowRule {
  std::string host;                   ///< lower case, no trailing dot; "*.x" for subdomains of x
  std::vector<Block> private_ranges;  ///< special blocks this host may resolve into
};

class Allowlist final {
 public:
  /// Parses --allow values; fails naming the first malformed one.
  static Result<Allowlist> parse(const std::vector<std::string>& entries);

  /// The rule matching host (already normalised), or nullptr: not on the list.
  const AllowRule* match(const std::string& host) const;

  bool empty() const { return rules_.empty(); }

 private:
  std::vector<AllowRule> rules_;
};

/// Lower case without a trailing dot: the form hosts are compared in.
std::string normaliseHost(const std::string& host);

}  // namespace gantry::fetch
