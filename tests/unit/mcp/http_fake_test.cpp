#include <catch2/catch.hpp>

#include "fake_mcp_http.h"
#include "mcp_test_support.h"

using namespace gantry;
using namespace gantry::mcp;
using namespace gantry::mcp::testing;

namespace {

ServerSpec httpSpec(const gantry::testing::FakeMcpHttp& fake) {
  ServerSpec spec;
  spec.name = "remote";
  spec.url = fake.url();
  spec.headers = {{"Authorization", "Bearer secret://daemon_token"}};
  return spec;
}

}  // namespace

TEST_CASE("Streamable HTTP sends manifest headers, the session id and the protocol version",
          "[mcp]") {
  gantry::testing::FakeMcpHttp fake;
  auto host = startHost({httpSpec(fake)});
  auto* server = host->server("remote");
  REQUIRE(server->status().state == ServerState::kUp);
  auto result = server->call("remote__echo", R"({"text":"over http"})", context());
  CHECK(result.ok);
  CHECK(result.text == "over http");
  const auto record = fake.record();
  CHECK(record.last_protocol_header == "2025-11-25");
  CHECK(record.methods.front() == "initialize");
  CHECK(record.methods[1] == "notifications/initialized");
  for (const auto& header : record.authorizations) CHECK(header == "Bearer secret://daemon_token");
}

TEST_CASE("Streamable HTTP answers on an SSE stream are read", "[mcp]") {
  gantry::testing::FakeMcpHttp fake;
  auto host = startHost({httpSpec(fake)});
  auto result =
      host->server("remote")->call("remote__echo_sse", R"({"text":"streamed"})", context());
  CHECK(result.ok);
  CHECK(result.text == "streamed");
}

TEST_CASE("an expired HTTP session is re-initialised once and the call retried", "[mcp]") {
  gantry::testing::FakeMcpHttp fake;
  auto host = startHost({httpSpec(fake)});
  auto* server = host->server("remote");
  fake.expireSessions();
  auto result = server->call("remote__echo", R"({"text":"again"})", context());
  CHECK(result.ok);
  CHECK(result.text == "again");
  const auto record = fake.record();
  CHECK(record.initializes == 2);
  CHECK(record.not_found >= 1);
}

TEST_CASE("shutdown ends the HTTP session with DELETE", "[mcp]") {
  gantry::testing::FakeMcpHttp fake;
  auto host = startHost({httpSpec(fake)});
  host->shutdown();
  const auto record = fake.record();
  REQUIRE(record.deleted.size() == 1);
  CHECK(record.deleted.front() == "session-1");
}

TEST_CASE("an HTTP server that cannot be reached is reported down, not fatal", "[mcp]") {
  ServerSpec spec;
  spec.name = "gone";
  spec.url = "http://127.0.0.1:1/mcp";
  auto options = fastOptions();
  options.boot_wait = std::chrono::milliseconds(3000);
  auto host = startHost({spec}, options);
  auto status = host->server("gone")->status();
  CHECK(status.state != ServerState::kUp);
  CHECK_THAT(status.last_error, Catch::Contains("POST http://127.0.0.1:1/mcp failed"));
  CHECK_THAT(host->describeTools(), Catch::Contains("gone (http, "));
}
