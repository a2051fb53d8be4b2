#include "slack_web.h"

#include <Poco/Net/HTTPSClientSession.h>

#include <catch2/catch.hpp>

#include "gantry/net/low_latency_session.h"

using gantry::net::LowLatencySession;

TEST_CASE("slack sessions are low-latency sessions for every scheme", "[slack]") {
  using Plain = LowLatencySession<Poco::Net::HTTPClientSession>;
  using Tls = LowLatencySession<Poco::Net::HTTPSClientSession>;
  auto tls = gantry::slack::clientTlsContext();
  CHECK(dynamic_cast<Plain*>(gantry::slack::openSession("http://127.0.0.1:9/api", tls).get()));
  CHECK(dynamic_cast<Plain*>(gantry::slack::openSession("ws://127.0.0.1:9/link", tls).get()));
  CHECK(dynamic_cast<Tls*>(gantry::slack::openSession("https://127.0.0.1:9/api", tls).get()));
  CHECK(dynamic_cast<Tls*>(gantry::slack::openSession("wss://127.0.0.1:9/link", tls).get()));
}
