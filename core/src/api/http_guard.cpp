#include "api/http_guard.h"

#include <Poco/String.h>

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
  if (token.empty()) return false;
  // The scheme is not secret and matched case-insensitively (RFC 9110 11.1), then one or more
  // spaces; only the credentials are compared in constant time.
  std::size_t space = header.find(' ');
  if (space == std::string::npos || Poco::icompare(header.substr(0, space), "bearer") != 0) {
    return false;
  }
  std::size_t start = header.find_first_not_of(' ', space);
  const std::string given = start == std::string::npos ? "" : header.substr(start);
  // Every byte of the longer string is looked at, whatever matched before.
  std::size_t n = std::max(given.size(), token.size());
  unsigned char diff = given.size() == token.size() ? 0 : 1;
  for (std::size_t i = 0; i < n; ++i) {
    unsigned char a = i < given.size() ? static_cast<unsigned char>(given[i]) : 0;
    unsigned char b = i < token.size() ? static_cast<unsigned char>(token[i]) : 0;
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
