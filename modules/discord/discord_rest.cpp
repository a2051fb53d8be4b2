#include "discord_rest.h"

#include <Poco/Exception.h>
#include <Poco/Net/HTMLForm.h>
#include <Poco/Net/HTTPRequest.h>
#include <Poco/Net/HTTPResponse.h>
#include <Poco/Net/StringPartSource.h>
#include <Poco/StreamCopier.h>
#include <Poco/URI.h>

#include <algorithm>
#include <cmath>
#include <sstream>
#include <thread>

#include "discord_api.h"
#include "discord_http.h"

namespace gantry::discord {
namespace {

constexpr int kMaxFaults = 5;           // 5xx / network attempts before giving up
constexpr int kMaxRateLimited = 20;     // 429s of one request before giving up
constexpr double kMaxWaitSeconds = 60;  // a single wait is never longer
constexpr const char* kUserAgent = "DiscordBot (https://github.com/gantry, 0.1)";

std::chrono::milliseconds seconds(double value) {
  // Rounded up: waking a millisecond early would meet the limit again.
  value = std::clamp(value, 0.0, kMaxWaitSeconds);
  return std::chrono::milliseconds(static_cast<std::int64_t>(std::ceil(value * 1000.0)));
}

std::chrono::milliseconds faultBackoff(int faults) {
  return std::chrono::milliseconds(250) * (1 << std::min(faults, 6));
}

double headerSeconds(const Poco::Net::HTTPResponse& response, const std::string& name) {
  try {
    return response.has(name) ? std::stod(response.get(name)) : -1;
  } catch (const std::exception&) {
    return -1;
  }
}

bool isDigits(const std::string& text) {
  return !text.empty() &&
         std::all_of(text.begin(), text.end(), [](char c) { return c >= '0' && c <= '9'; });
}

// The channel id of "/channels/{id}/...", the major parameter of the rate limit.
std::string majorParameter(const std::string& route) {
  auto start = route.find("/channels/");
  if (start == std::string::npos) return {};
  start += 10;
  return route.substr(start, route.find('/', start) - start);
}

}  // namespace

std::string routeKey(const std::string& method, const std::string& path) {
  std::string out = method + " ";
  std::istringstream parts(path);
  std::string part;
  std::string previous;
  bool first = true;
  while (std::getline(parts, part, '/')) {
    if (!first) out += '/';
    first = false;
    out += (previous == "messages" && isDigits(part)) ? std::string(":id") : part;
    previous = part;
  }
  return out;
}

RestClient::RestClient(Host& host, std::string api_base, std::string token)
    : host_(host), api_base_(std::move(api_base)), token_(std::move(token)) {
  while (!api_base_.empty() && api_base_.back() == '/') api_base_.pop_back();
}

Result<std::string> RestClient::request(const RestRequest& request) {
  const std::string route = routeKey(request.method, request.path);
  if (request.best_effort) return attemptOnce(request, route);
  int faults = 0;
  int limited = 0;
  for (;;) {
    std::this_thread::sleep_until(readyAt(route));
    Result<Reply> reply = sendOnce(request);
    if (reply.isOk() && reply->status == 429) {
      if (++limited > kMaxRateLimited) return failure(request, reply.value());
      noteRateLimited(reply.value(), route);
      continue;
    }
    if (reply.isOk() && reply->status < 500) {
      if (reply->status / 100 == 2) return reply->body;
      return failure(request, reply.value());
    }
    if (++faults >= kMaxFaults) {
      return reply.isOk() ? failure(request, reply.value()) : reply.status();
    }
    std::this_thread::sleep_for(faultBackoff(faults));
  }
}

Result<RestClient::Reply> RestClient::sendOnce(const RestRequest& request) {
  const std::string route = routeKey(request.method, request.path);
  try {
    Poco::URI uri(api_base_ + request.path);
    auto session = makeSession(uri);
    session->setTimeout(Poco::Timespan(30, 0));
    Poco::Net::HTTPRequest http(request.method, pathAndQuery(uri),
                                Poco::Net::HTTPMessage::HTTP_1_1);
    http.set("Authorization", "Bot " + token_);
    http.set("User-Agent", kUserAgent);
    if (!request.body.empty() || request.method != "GET") {
      http.setContentType(request.content_type);
      http.setContentLength(static_cast<std::streamsize>(request.body.size()));
    }
    session->sendRequest(http) << request.body;
    Poco::Net::HTTPResponse response;
    std::istream& in = session->receiveResponse(response);
    return readReply(response, in, route);
  } catch (const Poco::Exception& e) {
    return Status::retry("discord: " + request.method + " " + request.path + ": " +
                         e.displayText());
  }
}

RestClient::Reply RestClient::readReply(Poco::Net::HTTPResponse& response, std::istream& in,
                                        const std::string& route) {
  Reply reply;
  reply.status = static_cast<int>(response.getStatus());
  Poco::StreamCopier::copyToString(in, reply.body);
  recordBucket(response, route);
  if (reply.status != 429) return reply;
  auto limit = parseRateLimit(reply.body);
  reply.retry_after = limit ? limit->retry_after : headerSeconds(response, "Retry-After");
  if (reply.retry_after < 0) reply.retry_after = 1;
  reply.global = (limit && limit->global) || response.has("X-RateLimit-Global");
  return reply;
}

void RestClient::recordBucket(const Poco::Net::HTTPResponse& response, const std::string& route) {
  std::lock_guard lock(mutex_);
  if (response.has("X-RateLimit-Bucket")) {
    route_bucket_[route] = response.get("X-RateLimit-Bucket") + "@" + majorParameter(route);
  }
  auto bucket = route_bucket_.find(route);
  const std::string key = bucket == route_bucket_.end() ? route : bucket->second;
  double reset_after = headerSeconds(response, "X-RateLimit-Reset-After");
  if (response.get("X-RateLimit-Remaining", "") == "0" && reset_after > 0) {
    blocked_until_[key] = Clock::now() + seconds(reset_after);
  } else if (response.getStatus() != Poco::Net::HTTPResponse::HTTP_TOO_MANY_REQUESTS) {
    blocked_until_.erase(key);
  }
}

void RestClient::noteRateLimited(const Reply& reply, const std::string& route) {
  host_.log(LogLevel::kWarn, "discord: rate limited, waiting before retrying",
            {{"route", route},
             {"retry_after_s", std::to_string(reply.retry_after)},
             {"global", reply.global ? "true" : "false"}});
  std::lock_guard lock(mutex_);
  auto until = Clock::now() + seconds(reply.retry_after);
  if (reply.global) {
    global_until_ = std::max(global_until_, until);
    return;
  }
  auto bucket = route_bucket_.find(route);
  blocked_until_[bucket == route_bucket_.end() ? route : bucket->second] = until;
}

RestClient::Clock::time_point RestClient::readyAt(const std::string& route) {
  std::lock_guard lock(mutex_);
  Clock::time_point until = global_until_;
  auto bucket = route_bucket_.find(route);
  auto blocked = blocked_until_.find(bucket == route_bucket_.end() ? route : bucket->second);
  if (blocked != blocked_until_.end()) until = std::max(until, blocked->second);
  return until;
}

Result<std::string> RestClient::attemptOnce(const RestRequest& request, const std::string& route) {
  if (readyAt(route) > Clock::now()) {
    return Status::retry("discord: " + request.method + " " + request.path +
                         ": rate limited, skipped");
  }
  Result<Reply> reply = sendOnce(request);
  if (!reply.isOk()) return reply.status();
  if (reply->status == 429) noteRateLimited(reply.value(), route);
  if (reply->status / 100 == 2) return reply->body;
  return failure(request, reply.value());
}

Status RestClient::failure(const RestRequest& request, const Reply& reply) const {
  std::string message =
      "discord: " + request.method + " " + request.path + ": HTTP " + std::to_string(reply.status);
  if (reply.status == 401) return Status::error(message + " (check DISCORD_BOT_TOKEN)");
  std::string detail = errorMessage(reply.body);
  if (!detail.empty()) message += ": " + detail;
  if (reply.status == 403) {
    return Status::error(message + " (check the bot's permissions and that the user accepts DMs)");
  }
  if (reply.status == 429 || reply.status >= 500) return Status::retry(message);
  return Status::error(message);
}

Result<std::string> RestClient::upload(const std::string& path, const std::string& payload_json,
                                       const std::string& filename, const std::string& mime_type,
                                       const std::string& bytes) {
  Poco::Net::HTMLForm form;
  form.setEncoding(Poco::Net::HTMLForm::ENCODING_MULTIPART);
  form.addPart("payload_json", new Poco::Net::StringPartSource(payload_json, "application/json"));
  form.addPart("files[0]", new Poco::Net::StringPartSource(bytes, mime_type, filename));
  std::ostringstream body;
  form.write(body);
  return request({"POST", path, body.str(), "multipart/form-data; boundary=" + form.boundary()});
}

Result<std::string> RestClient::download(const std::string& url, std::size_t max_bytes) {
  try {
    Poco::URI uri(url);
    auto session = makeSession(uri);
    session->setTimeout(Poco::Timespan(10, 0));  // runs on the receive thread
    Poco::Net::HTTPRequest http(Poco::Net::HTTPRequest::HTTP_GET, pathAndQuery(uri),
                                Poco::Net::HTTPMessage::HTTP_1_1);
    http.set("User-Agent", kUserAgent);
    session->sendRequest(http);
    Poco::Net::HTTPResponse response;
    std::istream& in = session->receiveResponse(response);
    if (response.getStatus() != Poco::Net::HTTPResponse::HTTP_OK) {
      return Status::error("discord: attachment download: HTTP " +
                           std::to_string(static_cast<int>(response.getStatus())));
    }
    if (response.hasContentLength() &&
        response.getContentLength64() > static_cast<Poco::Int64>(max_bytes)) {
      return Status::error("discord: attachment larger than the size cap");
    }
    std::string bytes;
    char buffer[8192];
    while (in.read(buffer, sizeof buffer) || in.gcount() > 0) {
      bytes.append(buffer, static_cast<std::size_t>(in.gcount()));
      if (bytes.size() > max_bytes)
        return Status::error("discord: attachment larger than the size cap");
    }
    return bytes;
  } catch (const Poco::Exception& e) {
    return Status::retry("discord: attachment download: " + e.displayText());
  }
}

}  // namespace gantry::discord
