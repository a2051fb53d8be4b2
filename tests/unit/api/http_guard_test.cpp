#include "api/http_guard.h"

#include <catch2/catch.hpp>

#include "api/listen_address.h"

using gantry::api::bearerMatches;
using gantry::api::ListenAddress;
using gantry::api::loopbackHostAllowed;
using gantry::api::parseListenAddress;
using gantry::api::RateLimiter;

TEST_CASE("API_LISTEN takes loopback addresses and unix sockets only", "[api]") {
  CHECK(parseListenAddress("127.0.0.1:8700")->port == 8700);
  CHECK(parseListenAddress("[::1]:8700")->host == "::1");
  CHECK(parseListenAddress("localhost:1")->host == "127.0.0.1");
  CHECK(parseListenAddress("unix:/run/gantry/home.sock")->unix_path == "/run/gantry/home.sock");
  for (const char* bad :
       {"0.0.0.0:8700", "192.168.1.2:80", "[::]:80", "example.com:80", "127.0.0.1", "127.0.0.1:0",
        "127.0.0.1:70000", "127.0.0.1:8x", "unix:relative.sock", "unix:"}) {
    INFO(bad);
    CHECK_FALSE(parseListenAddress(bad).isOk());
  }
  CHECK(parseListenAddress("0.0.0.0:1").status().message().find("loopback") != std::string::npos);
}

TEST_CASE("Host and Origin must name the loopback listener", "[api]") {
  ListenAddress tcp{"127.0.0.1", 8700, {}};
  CHECK(loopbackHostAllowed("127.0.0.1:8700", "", tcp));
  CHECK(loopbackHostAllowed("localhost:8700", "http://localhost:8700", tcp));
  CHECK(loopbackHostAllowed("[::1]:8700", "", tcp));
  CHECK_FALSE(loopbackHostAllowed("127.0.0.1:8701", "", tcp));
  CHECK_FALSE(loopbackHostAllowed("evil.example:8700", "", tcp));
  CHECK_FALSE(loopbackHostAllowed("127.0.0.1", "", tcp));
  CHECK_FALSE(loopbackHostAllowed("127.0.0.1:8700", "http://evil.example", tcp));
  CHECK_FALSE(loopbackHostAllowed("127.0.0.1:8700", "null", tcp));
  ListenAddress unix_socket{{}, 0, "/run/g.sock"};
  CHECK(loopbackHostAllowed("localhost", "", unix_socket));
  CHECK_FALSE(loopbackHostAllowed("evil.example", "", unix_socket));
}

TEST_CASE("the bearer token must match exactly, its scheme in any case", "[api]") {
  CHECK(bearerMatches("Bearer s3cret", "s3cret"));
  CHECK(bearerMatches("bearer s3cret", "s3cret"));
  CHECK(bearerMatches("BEARER  s3cret", "s3cret"));
  CHECK_FALSE(bearerMatches("Bearer S3CRET", "s3cret"));
  CHECK_FALSE(bearerMatches("Bearers3cret", "s3cret"));
  CHECK_FALSE(bearerMatches("Basic s3cret", "s3cret"));
  CHECK_FALSE(bearerMatches("Bearer s3cre", "s3cret"));
  CHECK_FALSE(bearerMatches("Bearer s3cret2", "s3cret"));
  CHECK_FALSE(bearerMatches("s3cret", "s3cret"));
  CHECK_FALSE(bearerMatches("Bearer ", ""));
}

TEST_CASE("each client gets a burst, then its rate", "[api]") {
  RateLimiter limiter(1, 3);
  int retry = 0;
  for (int i = 0; i < 3; ++i) CHECK(limiter.allow("a", &retry));
  CHECK_FALSE(limiter.allow("a", &retry));
  CHECK(retry == 1);
  CHECK(limiter.allow("b", &retry));  // another client has its own bucket
}
