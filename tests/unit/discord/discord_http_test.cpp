#include "discord_http.h"

#include <Poco/Net/HTTPSClientSession.h>

#include <catch2/catch.hpp>

#include "gantry/net/low_latency_session.h"

using gantry::net::LowLatencySession;

TEST_CASE("discord sessions are low-latency sessions for every scheme", "[discord]") {
  using Plain = LowLatencySession<Poco::Net::HTTPClientSession>;
  using Tls = LowLatencySession<Poco::Net::HTTPSClientSession>;
  CHECK(dynamic_cast<Plain*>(gantry::discord::makeSession(Poco::URI("http://127.0.0.1:9")).get()));
  CHECK(dynamic_cast<Plain*>(gantry::discord::makeSession(Poco::URI("ws://127.0.0.1:9")).get()));
  CHECK(dynamic_cast<Tls*>(gantry::discord::makeSession(Poco::URI("https://127.0.0.1:9")).get()));
  CHECK(dynamic_cast<Tls*>(gantry::discord::makeSession(Poco::URI("wss://127.0.0.1:9")).get()));
}
