#include "config/plain_http.h"

#include <Poco/Exception.h>
#include <Poco/Net/IPAddress.h>
#include <Poco/URI.h>

#include "gantry/net/localhost.h"

namespace gantry::config {

bool isPlainHttpToRemote(const std::string& url) {
  Poco::URI uri;
  try {
    uri = Poco::URI(url);
  } catch (const Poco::Exception&) {
    return false;
  }
  if (uri.getScheme() != "http") return false;  // Poco lower-cases the scheme
  const std::string& host = uri.getHost();
  if (net::isLocalhostName(host)) return false;
  Poco::Net::IPAddress address;
  return !Poco::Net::IPAddress::tryParse(host, address) || !address.isLoopback();
}

}  // namespace gantry::config
