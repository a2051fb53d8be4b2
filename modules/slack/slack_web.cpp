#include "slack_web.h"

#include <Poco/Net/HTTPClientSession.h>
#include <Poco/Net/HTTPRequest.h>
#include <Poco/Net/HTTPResponse.h>
#include <Poco/Net/HTTPSClientSession.h>
#include <Poco/Net/NetException.h>
#include <Poco/Net/SSLManager.h>
#include <Poco/NumberParser.h>
#include <Poco/StreamCopier.h>
#include <Poco/URI.h>

#include <algorithm>
#include <istream>
#include <ostream>

#include "gantry/net/low_latency_session.h"

namespace gantry::slack {
namespace {

using std::chrono::milliseconds;
using std::chrono::seconds;

constexpr auto kHttpTimeout = seconds(30);
constexpr auto kMaxBackoff = seconds(30);
constexpr auto kMaxRetryAfter = seconds(300);

// Slack error codes that mean the token itself is wrong.
bool isTokenError(const std::string& error) {
  return error == "invalid_auth" || error == "not_authed" || error == "token_revoked" ||
         error == "token_expired" || error == "account_inactive" ||
         error == "not_allowed_token_type" || error == "missing_scope";
}

// Slack error codes that a later attempt may not see.
bool isServerTrouble(const std::string& error) {
  return error == "internal_error" || error == "fatal_error" || error == "service_unavailable" ||
         error == "request_timeout";
}

milliseconds backoff(int attempt) {
  auto wait = milliseconds(1000) * (1 << std::min(attempt, 5));
  return std::min<milliseconds>(wait, kMaxBackoff);
}

milliseconds retryAfter(const std::string& header) {
  int value = 1;
  if (!Poco::NumberParser::tryParse(header, value) || value < 0) value = 1;
  return std::min<milliseconds>(seconds(value), kMaxRetryAfter);
}

std::string readBody(std::istream& in, std::size_t limit, bool* too_big) {
  std::string body;
  char buffer[8192];
  while (in.read(buffer, sizeof buffer) || in.gcount() > 0) {
    body.append(buffer, static_cast<std::size_t>(in.gcount()));
    if (body.size() > limit) {
      *too_big = true;
      break;
    }
  }
  return body;
}

}  // namespace

Poco::Net::Context::Ptr clientTlsContext() {
  return new Poco::Net::Context(Poco::Net::Context::TLS_CLIENT_USE, "", "", "",
                                Poco::Net::Context::VERIFY_RELAXED, 9, true);
}

std::unique_ptr<Poco::Net::HTTPClientSession> openSession(const std::string& url,
                                                          const Poco::Net::Context::Ptr& tls) {
  Poco::URI uri(url);
  std::unique_ptr<Poco::Net::HTTPClientSession> session;
  if (uri.getScheme() == "https" || uri.getScheme() == "wss") {
    session = net::makeLowLatencySession<Poco::Net::HTTPSClientSession>(uri.getHost(),
                                                                        uri.getPort(), tls);
  } else {
    session =
        net::makeLowLatencySession<Poco::Net::HTTPClientSession>(uri.getHost(), uri.getPort());
  }
  session->setTimeout(Poco::Timespan(kHttpTimeout.count(), 0));
  return session;
}

WebClient::WebClient(Host& host, Options options)
    : host_(host), options_(std::move(options)), tls_(clientTlsContext()) {}

Result<ApiReply> WebClient::call(const std::string& method, const std::string& json_body) {
  return callWithRetries(method, options_.bot_token, json_body);
}

Result<ApiReply> WebClient::callWithAppToken(const std::string& method) {
  return callWithRetries(method, options_.app_token, "");
}

Result<ApiReply> WebClient::callWithRetries(const std::string& method, const std::string& token,
                                            const std::string& json_body) {
  Status last = Status::retry("slack: " + method + ": not attempted");
  for (int i = 0; i < options_.max_attempts; ++i) {
    auto result = attempt(method, token, json_body);
    if (result.status.isOk()) return result.reply;
    last = result.status;
    if (!last.retryable()) return last;
    host_.log(LogLevel::kWarn, "slack: Web API call will be retried",
              {{"method", method},
               {"reason", last.message()},
               {"wait_ms", std::to_string(result.wait.count())}});
    if (!sleepFor(result.wait)) return Status::retry("slack: " + method + ": interrupted");
  }
  return last;
}

WebClient::Attempt WebClient::attempt(const std::string& method, const std::string& token,
                                      const std::string& json_body) {
  try {
    auto url = options_.api_base + "/" + method;
    auto session = openSession(url, tls_);
    Poco::Net::HTTPRequest request(Poco::Net::HTTPRequest::HTTP_POST, Poco::URI(url).getPathEtc(),
                                   Poco::Net::HTTPMessage::HTTP_1_1);
    request.set("Authorization", "Bearer " + token);
    request.setContentType(json_body.empty() ? "application/x-www-form-urlencoded"
                                             : "application/json; charset=utf-8");
    request.setContentLength(static_cast<std::streamsize>(json_body.size()));
    session->sendRequest(request) << json_body;
    Poco::Net::HTTPResponse response;
    auto& in = session->receiveResponse(response);
    bool too_big = false;
    auto body = readBody(in, std::size_t{4} * 1024 * 1024, &too_big);
    return classify(method, response.getStatus(), response.get("Retry-After", ""), body);
  } catch (const Poco::Exception& e) {
    return {Status::retry("slack: " + method + ": " + e.displayText() +
                          " (check SLACK_API_BASE and the network)"),
            backoff(0),
            {}};
  }
}

WebClient::Attempt WebClient::classify(const std::string& method, int http_status,
                                       const std::string& retry_after, const std::string& body) {
  auto prefix = "slack: " + method + ": ";
  if (http_status == 429) {
    return {Status::retry(prefix + "HTTP 429 rate limited"), retryAfter(retry_after), {}};
  }
  if (http_status >= 500) {
    return {Status::retry(prefix + "HTTP " + std::to_string(http_status)), backoff(1), {}};
  }
  auto reply = parseApiReply(body);
  if (!reply.isOk()) {
    return {Status::error(prefix + "HTTP " + std::to_string(http_status) + ", body is not JSON"),
            {},
            {}};
  }
  if (reply->ok) return {Status::ok(), {}, reply.value()};
  if (reply->error == "ratelimited") {
    return {Status::retry(prefix + "ratelimited"), retryAfter(retry_after), {}};
  }
  if (isServerTrouble(reply->error)) return {Status::retry(prefix + reply->error), backoff(1), {}};
  auto variable = method == "apps.connections.open" ? "SLACK_APP_TOKEN" : "SLACK_BOT_TOKEN";
  auto hint = isTokenError(reply->error) ? std::string(" (check ") + variable + ")" : "";
  return {Status::error(prefix + reply->error + hint), {}, reply.value()};
}

Result<std::string> WebClient::download(const std::string& url) {
  try {
    auto session = openSession(url, tls_);
    Poco::Net::HTTPRequest request(Poco::Net::HTTPRequest::HTTP_GET, Poco::URI(url).getPathEtc(),
                                   Poco::Net::HTTPMessage::HTTP_1_1);
    request.set("Authorization", "Bearer " + options_.bot_token);
    session->sendRequest(request);
    Poco::Net::HTTPResponse response;
    auto& in = session->receiveResponse(response);
    if (response.getStatus() != Poco::Net::HTTPResponse::HTTP_OK) {
      return Status::error("slack: file download: HTTP " + std::to_string(response.getStatus()) +
                           " (check the files:read scope of SLACK_BOT_TOKEN)");
    }
    // Without the files:read scope Slack answers with its HTML sign-in page, not the file.
    if (response.getContentType().rfind("text/html", 0) == 0) {
      return Status::error(
          "slack: file download: got a web page (add the files:read scope to "
          "the app of SLACK_BOT_TOKEN)");
    }
    bool too_big = false;
    auto body = readBody(in, options_.max_download_bytes, &too_big);
    if (too_big) return Status::error("slack: file download: larger than the size cap");
    return body;
  } catch (const Poco::Exception& e) {
    return Status::retry("slack: file download: " + e.displayText());
  }
}

void WebClient::interrupt() {
  std::lock_guard lock(mutex_);
  interrupted_ = true;
  wake_.notify_all();
}

bool WebClient::sleepFor(std::chrono::milliseconds wait) {
  std::unique_lock lock(mutex_);
  wake_.wait_for(lock, wait, [this] { return interrupted_; });
  return !interrupted_;
}

}  // namespace gantry::slack
