#pragma once
/// RestClient: Discord's HTTP API with its rate limits. A request that meets a 429 waits
/// retry_after and is sent again; a bucket whose X-RateLimit-Remaining reached 0 is waited
/// out before its next request; 5xx and network faults are retried with backoff.

#include <chrono>
#include <map>
#include <mutex>
#include <string>

#include "gantry/host.h"
#include "gantry/status.h"

namespace Poco::Net {
class HTTPResponse;
}

namespace gantry::discord {

/// One request: path is relative to the API base ("/channels/1/messages").
struct RestRequest {
  std::string method;
  std::string path;
  std::string body;
  std::string content_type = "application/json";
  /// One attempt, never waiting for a rate limit (typing indicators): a blocked bucket or a
  /// 429 is reported instead of waited out.
  bool best_effort = false;
};

/// Thread-safe: any thread may call request() at once; rate-limit state is shared.
class RestClient {
 public:
  /// api_base like "https://discord.com/api/v10"; host must outlive the client.
  RestClient(Host& host, std::string api_base, std::string token);
  RestClient(const RestClient&) = delete;
  RestClient& operator=(const RestClient&) = delete;

  /// Sends the request, honouring rate limits; returns the body of a 2xx reply. A 4xx other
  /// than 429 is an error naming method, path and Discord's message; repeated 5xx or network
  /// faults end in a retryable Status.
  Result<std::string> request(const RestRequest& request);

  /// Sends a message with one file (multipart/form-data: payload_json + files[0]).
  Result<std::string> upload(const std::string& path, const std::string& payload_json,
                             const std::string& filename, const std::string& mime_type,
                             const std::string& bytes);

  /// GETs an absolute URL without credentials (attachments); an error past max_bytes.
  Result<std::string> download(const std::string& url, std::size_t max_bytes);

 private:
  using Clock = std::chrono::steady_clock;
  struct Reply {
    int status = 0;
    std::string body;
    double retry_after = 0;  // seconds, from a 429
    bool global = false;
  };

  Result<std::string> attemptOnce(const RestRequest& request, const std::string& route);
  Result<Reply> sendOnce(const RestRequest& request);
  Reply readReply(Poco::Net::HTTPResponse& response, std::istream& in, const std::string& route);
  void recordBucket(const Poco::Net::HTTPResponse& response, const std::string& route);
  Clock::time_point readyAt(const std::string& route);
  void noteRateLimited(const Reply& reply, const std::string& route);
  Status failure(const RestRequest& request, const Reply& reply) const;

  Host& host_;
  std::string api_base_;
  std::string token_;
  std::mutex mutex_;
  std::map<std::string, std::string> route_bucket_;         // route -> X-RateLimit-Bucket
  std::map<std::string, Clock::time_point> blocked_until_;  // bucket (or route) -> reset
  Clock::time_point global_until_{};
};

/// The rate-limit key of a request: method and path with message ids folded, so edits of
/// different messages in one channel share a key (the channel id is the major parameter).
std::string routeKey(const std::string& method, const std::string& path);

}  // namespace gantry::discord
