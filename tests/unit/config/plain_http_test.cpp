#include "config/plain_http.h"

#include <catch2/catch.hpp>

using gantry::config::isPlainHttpToRemote;

TEST_CASE("plain http to a host that is not loopback is where a credential travels in clear",
          "[config]") {
  for (const char* url : {"http://203.0.113.5/v1", "HTTP://api.example.com/",
                          "http://10.0.0.2:8080", "http://[2001:db8::1]/",
                          "http://127.0.0.1.example.com/", "http://localhost.example.com/"}) {
    INFO(url);
    CHECK(isPlainHttpToRemote(url));
  }
  for (const char* url : {"https://api.example.com/v1", "http://127.0.0.1:11434/v1",
                          "http://127.5.6.7/", "http://[::1]:8080/", "http://localhost:8080/",
                          "http://ollama.localhost/", "not a url", "", "ws://example.com/"}) {
    INFO(url);
    CHECK_FALSE(isPlainHttpToRemote(url));
  }
}
