#pragma once
/// Shared pieces of the fake's request handling (not part of its public interface).

#include <map>
#include <string>

namespace Poco::Net {
class HTTPServerRequest;
class HTTPServerResponse;
}  // namespace Poco::Net

namespace gantry::fakes {

/// A Bot API call's parameters from a query string, urlencoded or multipart form, or JSON
/// object (non-string JSON values are kept as their JSON text).
struct BotParams {
  std::map<std::string, std::string> values;
  std::map<std::string, std::string> uploads;  ///< multipart file parts: name -> bytes

  std::string get(const std::string& name) const {
    auto it = values.find(name);
    return it == values.end() ? "" : it->second;
  }
};

BotParams readParams(Poco::Net::HTTPServerRequest& request);
void sendJson(Poco::Net::HTTPServerResponse& response, int status, const std::string& body);
/// {"ok":false,"error_code":…,"description":…[,"parameters":{"retry_after":…}]}
std::string errorJson(int code, const std::string& description, int retry_after);
/// Telegram's description for an error status ("Too Many Requests: retry after N" etc.).
std::string defaultDescription(int status);

}  // namespace gantry::fakes
