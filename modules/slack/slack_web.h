#pragma once
/// WebClient: Slack Web API calls over HTTP(S) with Slack's retry rules.

#include <Poco/Net/Context.h>

#include <chrono>
#include <condition_variable>
#include <cstddef>
#include <memory>
#include <mutex>
#include <string>

#include "gantry/host.h"
#include "gantry/status.h"
#include "slack_api.h"

namespace Poco::Net {
class HTTPClientSession;
}

namespace gantry::slack {

/// Opens an HTTP or HTTPS session for an http(s):// or ws(s):// URL. Throws Poco exceptions
/// on a malformed URL.
std::unique_ptr<Poco::Net::HTTPClientSession> openSession(const std::string& url,
                                                          const Poco::Net::Context::Ptr& tls);

/// The TLS client context (system CAs, peer verification) shared by the module's sessions.
Poco::Net::Context::Ptr clientTlsContext();

/// Calls Web API methods. HTTP 429 waits Retry-After and retries; ok:false "ratelimited",
/// HTTP 5xx and network faults retry with backoff; other ok:false replies fail with the
/// error code. Thread-safe: every call uses its own connection. interrupt() makes waiting
/// calls return a retryable Status at once (shutdown).
class WebClient {
 public:
  struct Options {
    std::string api_base;   ///< e.g. https://slack.com/api (no trailing slash)
    std::string bot_token;  ///< xoxb-…, for every method but apps.connections.open
    std::string app_token;  ///< xapp-…, for apps.connections.open
    int max_attempts = 8;   ///< per call, 429 waits included
    std::size_t max_download_bytes = std::size_t{20} * 1024 * 1024;
  };

  WebClient(Host& host, Options options);
  WebClient(const WebClient&) = delete;
  WebClient& operator=(const WebClient&) = delete;

  /// POSTs a JSON body to {api_base}/{method} with the bot token; ok:true replies only.
  Result<ApiReply> call(const std::string& method, const std::string& json_body);
  /// POSTs to {api_base}/{method} with the app-level token (apps.connections.open).
  Result<ApiReply> callWithAppToken(const std::string& method);
  /// GETs a private file URL with the bot token; fails past max_download_bytes.
  Result<std::string> download(const std::string& url);

  /// Wakes every retry wait; later calls fail at once. Thread-safe, idempotent.
  void interrupt();

 private:
  struct Attempt {
    Status status;  ///< ok, retry (with wait) or error
    std::chrono::milliseconds wait{0};
    ApiReply reply;
  };

  Result<ApiReply> callWithRetries(const std::string& method, const std::string& token,
                                   const std::string& json_body);
  Attempt attempt(const std::string& method, const std::string& token,
                  const std::string& json_body);
  Attempt classify(const std::string& method, int http_status, const std::string& retry_after,
                   const std::string& body);
  bool sleepFor(std::chrono::milliseconds wait);

  Host& host_;
  Options options_;
  Poco::Net::Context::Ptr tls_;
  std::mutex mutex_;
  std::condition_variable wake_;
  bool interrupted_ = false;
};

}  // namespace gantry::slack
