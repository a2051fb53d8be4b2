#include "api/http_guard.h"

#include <cmath>
#include <vector>

namespace gantry::api {

bool loopbackHostAllowed(const std::string& host_header, const std::string& origin,
                         const ListenAddress& listen) {
  std::vector<std::string> hosts;
  if (!listen.unix_path.empty()) {
    hosts = {"localhost"};
  } else {
    std::string port = ":" + std::to_string(listen.port);
    hosts = {"127.0.0.1" + port, "localhost" + port, "[::1]" + port};
  }
  bool host_ok = false, origin_ok = origin.empty();
  for (const auto& h : hosts) {
    host_ok = host_ok || host_header == h;
    origin_ok = origin_ok || origin == "http://" + h;
  }
  return host_ok && origin_ok;
}

bool bearerMatches(const std::string& header, const std::string& token) {
  const std::string expected = "Bearer " + token;
  if (token.empty()) return false;
  // Every byte of the longer string is looked at, whatever matched before.
  std::size_t n = std::max(header.size(), expected.size());
  unsigned char diff = header.size() == expected.size() ? 0 : 1;
  for (std::size_t i = 0; i < n; ++i) {
    unsigned char a = i < header.size() ? static_cast<unsigned char>(header[i]) : 0;
    unsigned char b = i < expected.size() ? static_cast<unsigned char>(expected[i]) : 0;
    diff |= static_cast<unsigned char>(a ^ b);
  }
  return diff == 0;
}

bool RateLimiter::allow(const std::string& client, int* retry_after_seconds) {
  auto now = std::chrono::steady_clock::now();
  std::lock_guard lock(mutex_);
  auto [it, fresh] = buckets_.try_emplace(client, Bucket{burst_, now});
  Bucket& b = it->second;
  if (!fresh) {
    double elapsed = std::chrono::duration<double>(now - b.at).count();
    b.tokens = std::min(burst_, b.tokens + elapsed * rate_);
    b.at = now;
  }
  if (b.tokens >= 1) {
    b.tokens -= 1;
    return true;
  }
  *retry_after_seconds = static_cast<int>(std::ceil((1 - b.tokens) / rate_));
  return false;
}

}  // namespace gantry::api
