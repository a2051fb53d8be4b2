#pragma once
/// The encodings a careless tool spills a secret in: the leaking fake MCP tool writes them,
/// and the tests that prove none reaches the record or a chat look for them.

#include <Poco/Base64Encoder.h>

#include <cctype>
#include <sstream>
#include <string>

namespace gantry::fakes {

/// Base64 (or base64url) with padding, on one line.
inline std::string base64(const std::string& bytes, bool url = false) {
  std::ostringstream out;
  Poco::Base64Encoder encoder(out, url ? Poco::BASE64_URL_ENCODING : 0);
  encoder.rdbuf()->setLineLength(0);
  encoder << bytes;
  encoder.close();
  return out.str();
}

/// Every byte but the unreserved ones (RFC 3986) as %XX.
inline std::string percentEncoded(const std::string& text) {
  static constexpr char kHex[] = "0123456789ABCDEF";
  std::string out;
  for (unsigned char c : text) {
    if (std::isalnum(c) != 0 || c == '-' || c == '_' || c == '.' || c == '~') {
      out += static_cast<char>(c);
    } else {
      out.append({'%', kHex[c >> 4], kHex[c & 15]});
    }
  }
  return out;
}

}  // namespace gantry::fakes
