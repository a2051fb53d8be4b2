#pragma once
/// The checks every local API request passes before it is read: a Host (and Origin, when
/// sent) naming this loopback listener — the DNS-rebinding protection the MCP specification
/// asks of local servers — a bearer token compared in constant time, and a per-client rate.

#include <chrono>
#include <map>
#include <mutex>
#include <string>

#include "api/listen_address.h"

namespace gantry::api {

/// True when host_header names the listener by a loopback name and port, and origin is
/// empty or the same http origin. A unix socket accepts "localhost" (what curl sends).
bool loopbackHostAllowed(const std::string& host_header, const std::string& origin,
                         const ListenAddress& listen);

/// True when header is "Bearer <token>", the scheme in any case and followed by one or more
/// spaces; the time taken does not depend on where a wrong token first differs. An empty token
/// matches nothing.
bool bearerMatches(const std::string& header, const std::string& token);

/// A token bucket per client: `burst` requests at once, refilled at `per_second`.
class RateLimiter {
 public:
  RateLimiter(double per_second, double burst) : rate_(per_second), burst_(burst) {}
  /// Takes one token for client; false (and the seconds until the next) when none is left.
  bool allow(const std::string& client, int* retry_after_seconds);

 private:
  struct Bucket {
    double tokens;
    std::chrono::steady_clock::time_point at;
  };
  double rate_, burst_;
  std::mutex mutex_;
  std::map<std::string, Bucket> buckets_;
};

}  // namespace gantry::api
