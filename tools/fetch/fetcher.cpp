#include "fetch/fetcher.h"

#include <Poco/Exception.h>
#include <Poco/InflatingStream.h>
#include <Poco/Net/Context.h>
#include <Poco/Net/HTTPClientSession.h>
#include <Poco/Net/HTTPRequest.h>
#include <Poco/Net/HTTPResponse.h>
#include <Poco/Net/NetException.h>
#include <Poco/Net/SSLException.h>
#include <Poco/Net/SecureStreamSocket.h>
#include <Poco/Net/StreamSocket.h>
#include <Poco/URI.h>

#include <optional>

#include "fetch/deadline_guard.h"

namespace gantry::fetch {
namespace {

using Clock = std::chrono::steady_clock;

/// A URL that passed the scheme and allowlist checks.
struct Target {
  Poco::URI uri;
  std::string host;
  const AllowRule* rule = nullptr;
};

/// A hop's outcome: a final response, or where it redirects to.
struct Hop {
  FetchResult result;
  std::string location;
};

Poco::Timespan remaining(Clock::time_point deadline) {
  const auto left = std::chrono::duration_cast<std::chrono::microseconds>(deadline - Clock::now());
  return Poco::Timespan(std::max<std::int64_t>(left.count(), 1));
}

Result<Target> checkUrl(const std::string& url, const Allowlist& allow) {
  Poco::URI uri;
  try {
    uri = Poco::URI(url);
  } catch (const Poco::Exception& e) {
    return Status::error("fetch " + url + ": not a URL (" + e.message() + ")");
  }
  if (uri.getScheme() != "http" && uri.getScheme() != "https") {
    return Status::error("fetch " + url + ": only http and https URLs are fetched");
  }
  if (!uri.getUserInfo().empty())
    return Status::error("fetch " + url + ": credentials in URLs are refused");
  const std::string host = normaliseHost(uri.getHost());
  const std::uint16_t default_port = uri.getScheme() == "https" ? 443 : 80;
  const AllowRule* rule = allow.match(host, uri.getPort(), default_port);
  if (rule == nullptr && allow.listsHost(host)) {
    const std::string port = std::to_string(uri.getPort());
    return Status::error("fetch " + url + ": port " + port + " of '" + host +
                         "' is not on the allowlist (--allow " + host + ":" + port +
                         " would allow it)");
  }
  if (rule == nullptr) {
    return Status::error("fetch " + url + ": host '" + host +
                         "' is not on the allowlist (--allow)");
  }
  return Target{uri, host, rule};
}

/// Hop 0 is the URL asked for; a later hop is a redirect from a page fetched over
/// from_scheme, refused (not followed) when its target fails the checks or would step down
/// from https to plain http.
Result<Target> checkHop(const std::string& url, const std::string& current,
                        const std::string& from_scheme, const Allowlist& allow) {
  auto target = checkUrl(current, allow);
  if (from_scheme.empty()) return target;
  if (!target.isOk()) {
    return Status::error("fetch " + url +
                         ": redirect refused, not followed: " + target.status().message());
  }
  if (from_scheme == "https" && target->uri.getScheme() == "http") {
    return Status::error("fetch " + url + ": redirect refused, not followed: " + current +
                         " would leave https for plain http");
  }
  return target;
}

bool inRanges(const IpAddress& address, const AllowRule& rule) {
  for (const auto& block : rule.private_ranges) {
    if (block.contains(address)) return true;
    if (auto inner = embeddedIpv4(address); inner && block.contains(*inner)) return true;
  }
  return false;
}

Poco::Net::StreamSocket connectTo(const std::vector<IpAddress>& addresses, std::uint16_t port,
                                  Clock::time_point deadline) {
  std::string errors;
  for (const auto& address : addresses) {
    try {
      Poco::Net::StreamSocket socket;
      socket.connect(Poco::Net::SocketAddress(address.text(), port), remaining(deadline));
      return socket;
    } catch (const Poco::Exception& e) {
      errors += (errors.empty() ? "" : "; ") + address.text() + ": " + e.displayText();
    }
  }
  throw Poco::Net::NetException("cannot connect (" + errors + ")");
}

/// The connected socket, in TLS for https: SNI and certificate verification use the name,
/// while the socket is already connected to the checked address.
Poco::Net::StreamSocket secured(const Target& target, const Poco::Net::StreamSocket& socket) {
  if (target.uri.getScheme() == "http") return socket;
  // The system's CAs (OpenSSL's defaults, so SSL_CERT_FILE and SSL_CERT_DIR apply). STRICT,
  // since under RELAXED Poco skips the name check for a name the system resolves to loopback.
  static const Poco::Net::Context::Ptr context = new Poco::Net::Context(
      Poco::Net::Context::TLS_CLIENT_USE, "", "", "", Poco::Net::Context::VERIFY_STRICT, 9, true);
  return Poco::Net::SecureStreamSocket::attach(socket, target.host, context);
}

/// A certificate refusal said plainly and not retried; other TLS faults (a handshake cut
/// short) may pass on a retry.
Status tlsFailure(const std::string& url, const std::string& host,
                  const Poco::Net::SSLException& e) {
  if (dynamic_cast<const Poco::Net::CertificateValidationException*>(&e) != nullptr) {
    return Status::error("fetch " + url + ": TLS: the certificate is not valid for '" + host +
                         "'; refused");
  }
  if (e.message().find("certificate verify failed") != std::string::npos) {
    return Status::error("fetch " + url + ": TLS: the certificate of '" + host +
                         "' is not trusted (" + e.message() + "); refused");
  }
  return Status::retry("fetch " + url + ": TLS: " + e.displayText());
}

std::string readBody(std::istream& in, std::uint64_t cap, bool* truncated) {
  std::string body;
  char buffer[16384];
  while (in && body.size() <= cap) {
    in.read(buffer, sizeof buffer);
    body.append(buffer, static_cast<std::size_t>(in.gcount()));
  }
  *truncated = body.size() > cap;
  if (*truncated) body.resize(cap);
  return body;
}

Poco::Net::HTTPRequest buildRequest(const Target& target) {
  std::string path = target.uri.getPathAndQuery();
  if (path.empty()) path = "/";
  Poco::Net::HTTPRequest request(Poco::Net::HTTPRequest::HTTP_GET, path,
                                 Poco::Net::HTTPMessage::HTTP_1_1);
  request.setHost(target.host, target.uri.getPort());
  request.set("User-Agent", "gantry-fetch");
  request.set("Accept", "text/html, text/plain;q=0.9, application/json;q=0.8, */*;q=0.1");
  request.set("Accept-Encoding", "gzip");
  request.setKeepAlive(false);
  return request;
}

Hop exchange(const Target& target, const Poco::Net::StreamSocket& socket,
             const FetchOptions& options, Clock::time_point deadline) {
  // A plain session for https too, over the TLS socket: Poco 1.11's HTTPSClientSession(socket)
  // sets the port of what is then a connected session, which throws.
  Poco::Net::HTTPClientSession http(secured(target, socket));
  http.setTimeout(remaining(deadline));
  auto request = buildRequest(target);
  http.sendRequest(request);
  Poco::Net::HTTPResponse response;
  std::istream& raw = http.receiveResponse(response);
  Hop hop;
  hop.result.status = static_cast<int>(response.getStatus());
  hop.result.final_url = target.uri.toString();
  hop.result.content_type = response.getContentType();
  const int s = hop.result.status;
  if ((s == 301 || s == 302 || s == 303 || s == 307 || s == 308) && response.has("Location")) {
    hop.location = response.get("Location");
    return hop;
  }
  if (!isTextType(hop.result.content_type)) return hop;
  if (response.get("Content-Encoding", "") == "gzip") {
    Poco::InflatingInputStream inflated(raw, Poco::InflatingStreamBuf::STREAM_GZIP);
    hop.result.body = readBody(inflated, options.max_bytes, &hop.result.truncated);
  } else {
    hop.result.body = readBody(raw, options.max_bytes, &hop.result.truncated);
  }
  hop.result.bytes = hop.result.body.size();
  return hop;
}

}  // namespace

bool isTextType(const std::string& content_type) {
  const std::string type = content_type.substr(0, content_type.find(';'));
  if (type.empty() || type.rfind("text/", 0) == 0) return true;
  for (const char* t : {"application/json", "application/xml", "application/xhtml+xml"}) {
    if (type == t) return true;
  }
  return type.size() > 5 && (type.compare(type.size() - 5, 5, "+json") == 0 ||
                             (type.size() > 4 && type.compare(type.size() - 4, 4, "+xml") == 0));
}

Fetcher::Fetcher(FetchOptions options, HostResolver resolver)
    : options_(std::move(options)), resolver_(std::move(resolver)) {}

Result<std::vector<IpAddress>> Fetcher::checkedAddresses(const std::string& host,
                                                         const AllowRule& rule) const {
  auto addresses = resolver_.resolve(host);
  if (!addresses.isOk()) return addresses.status();
  for (const auto& address : addresses.value()) {
    const auto why = specialPurpose(address);
    if (!why) continue;
    const bool excused =
        !isMetadata(address) &&
        ((options_.allow_loopback && isLoopback(address)) || inRanges(address, rule));
    if (!excused) {
      return Status::error("host '" + host + "' resolves to a special-purpose address: " + *why +
                           "; refused");
    }
  }
  return addresses;
}

Result<FetchResult> Fetcher::fetch(const std::string& url) const {
  const auto deadline = Clock::now() + options_.timeout;
  const std::string timed_out = "fetch " + url + ": timed out after " +
                                std::to_string(options_.timeout.count()) + " s (--timeout)";
  std::string current = url;
  std::string from_scheme;  // empty: the URL asked for, not a redirect
  for (int hop = 0; hop <= options_.max_redirects; ++hop) {
    auto target = checkHop(url, current, from_scheme, options_.allow);
    if (!target.isOk()) return target.status();
    auto addresses = checkedAddresses(target->host, *target->rule);
    if (!addresses.isOk())
      return Status::error("fetch " + current + ": " + addresses.status().message());
    Hop result;
    std::optional<DeadlineGuard> guard;
    try {
      auto socket = connectTo(addresses.value(), target->uri.getPort(), deadline);
      guard.emplace(socket, deadline);
      result = exchange(target.value(), socket, options_, deadline);
    } catch (const Poco::Net::SSLException& e) {
      if (guard && guard->fired()) return Status::retry(timed_out);
      return tlsFailure(current, target->host, e);
    } catch (const Poco::Exception& e) {
      if (guard && guard->fired()) return Status::retry(timed_out);
      return Status::retry("fetch " + current + ": " + e.displayText());
    }
    // A body cut short by the guard reads as an ordinary end: never return it as the page.
    if (guard->fired()) return Status::retry(timed_out);
    if (result.location.empty()) return result.result;
    if (Clock::now() >= deadline) return Status::retry(timed_out);
    current = Poco::URI(target->uri, result.location).toString();
    from_scheme = target->uri.getScheme();
  }
  return Status::error("fetch " + url + ": more than " + std::to_string(options_.max_redirects) +
                       " redirects; stopped");
}

}  // namespace gantry::fetch
