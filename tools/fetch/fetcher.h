#pragma once
/// One fetch(url) of gantry-fetch: the host must be on the allowlist; the name is resolved
/// here and every address checked (special-purpose blocks refused unless the owner allowed
/// that block for that host); the connection goes to a checked address on a fresh socket
/// with SNI and Host set to the name; redirects are followed by the same rules, at most 5,
/// and one to a host not on the list is refused, not followed.

#include <chrono>
#include <cstdint>
#include <string>

#include "fetch/allowlist.h"
#include "fetch/host_resolver.h"
#include "gantry/status.h"

namespace gantry::fetch {

struct FetchOptions {
  Allowlist allow;
  /// Body bytes kept; the rest is cut, noted.
  std::uint64_t max_bytes = std::uint64_t{2} * 1024 * 1024;
  std::chrono::seconds timeout{20};  ///< the whole fetch, redirects included
  int max_redirects = 5;
  bool allow_loopback = false;  ///< tests only: loopback addresses pass the address check
};

/// What a successful fetch returns.
struct FetchResult {
  int status = 0;
  std::string final_url;
  std::string content_type;
  std::uint64_t bytes = 0;  ///< body bytes received (after gzip decoding)
  bool truncated = false;
  std::string body;
};

/// Thread-compatible; each fetch uses its own connections.
class Fetcher final {
 public:
  Fetcher(FetchOptions options, HostResolver resolver);

  /// Fetches url; every refusal is an error naming the URL and the rule that refused it.
  Result<FetchResult> fetch(const std::string& url) const;

  /// The address check alone: the addresses host may be connected to under rule, or why
  /// none may (exposed for tests).
  Result<std::vector<IpAddress>> checkedAddresses(const std::string& host,
                                                  const AllowRule& rule) const;

 private:
  FetchOptions options_;
  HostResolver resolver_;
};

/// True when a content type is text the tool returns (text/*, JSON, XML, XHTML).
bool isTextType(const std::string& content_type);

}  // namespace gantry::fetch
