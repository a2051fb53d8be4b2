#include "log/redactor.h"

#include <Poco/Base64Encoder.h>
#include <Poco/URI.h>

#include <catch2/catch.hpp>
#include <sstream>

using gantry::log::Redactor;

namespace {

std::string base64(const std::string& text, int options = 0) {
  std::ostringstream out;
  Poco::Base64Encoder encoder(out, options);
  encoder.rdbuf()->setLineLength(0);
  encoder << text;
  encoder.close();
  return out.str();
}

constexpr const char* kSecret = "s3cr3t+/token?=&value";

}  // namespace

TEST_CASE("a secret and its escapes are replaced by a marker naming it", "[log]") {
  Redactor redactor;
  redactor.add("api", kSecret);
  CHECK(redactor.apply(std::string("key=") + kSecret + " end") == "key=[redacted:api] end");
  std::string url;
  Poco::URI::encode(kSecret, "!#$&'()*+,/:;=?@[]", url);
  CHECK(redactor.apply("u=" + url).find("token") == std::string::npos);
  Redactor quoted;
  quoted.add("q", "say \"hi\" now");
  CHECK(quoted.apply(R"({"v":"say \"hi\" now"})") == R"({"v":"[redacted:q]"})");
}

TEST_CASE("base64 of a secret is caught at every alignment inside a longer text", "[log]") {
  Redactor redactor;
  redactor.add("tok", kSecret);
  for (const std::string prefix : {"", "a", "ab", "abc"}) {
    for (int options : {0, static_cast<int>(Poco::BASE64_URL_ENCODING)}) {
      const auto encoded = base64(prefix + kSecret + "tail", options);
      const auto shown = redactor.apply(encoded);
      INFO(prefix << " " << options << " " << shown);
      CHECK(shown.find("[redacted:tok]") != std::string::npos);
      // What is left can no longer be decoded back to the secret's middle.
      CHECK(shown.find(base64(std::string(kSecret).substr(3, 9), options).substr(0, 8)) ==
            std::string::npos);
    }
  }
}

TEST_CASE("each line of a multi-line secret is redacted on its own", "[log]") {
  Redactor redactor;
  redactor.add("pem", "-----BEGIN KEY-----\nMIIBOgIBAAJBAK\n-----END KEY-----\n");
  const auto shown = redactor.apply("line MIIBOgIBAAJBAK here");
  CHECK(shown == "line [redacted:pem] here");
}

TEST_CASE("short values are not registered, so ordinary words survive", "[log]") {
  Redactor redactor;
  redactor.add("pin", "abc");
  CHECK(redactor.apply("abc abcd") == "abc abcd");
}

TEST_CASE("the end of a text that begins a secret is held back, nothing else", "[log]") {
  gantry::log::Redactor r;
  r.add("tok", "sk-abcdef-123");
  CHECK(r.partialTail("the key is sk-ab") == 5);
  CHECK(r.partialTail("the key is s") == 1);
  CHECK(r.partialTail("the key is ") == 0);
  CHECK(r.partialTail("the key is sk-abcdef-123") == 0);  // complete: redacted, not held
  CHECK(r.partialTail("sk-abcdef-12") == 12);
  CHECK(r.partialTail("") == 0);
}
