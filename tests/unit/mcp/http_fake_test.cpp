#include <algorithm>
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

/// GETs that resumed after an echo_resume stream's event (its ids start with "e-").
long resumedAnswers(const gantry::testing::FakeMcpHttp::Record& record) {
  return std::count_if(record.last_event_ids.begin(), record.last_event_ids.end(),
                       [](const std::string& id) { return id.rfind("e-", 0) == 0; });
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

TEST_CASE("a manifest url with no path posts to the root", "[mcp]") {
  gantry::testing::FakeMcpHttp fake;
  auto spec = httpSpec(fake);
  spec.url = fake.rootUrl();
  auto host = startHost({spec});
  auto result = host->server("remote")->call("remote__echo", R"({"text":"root"})", context());
  CHECK(result.ok);
  CHECK(result.text == "root");
  for (const auto& target : fake.record().targets) CHECK(target == "/");
}

TEST_CASE("a localhost url reaches loopback without a name lookup and keeps its Host header",
          "[mcp]") {
  gantry::testing::FakeMcpHttp fake;
  auto spec = httpSpec(fake);
  spec.url = "http://localhost:" + std::to_string(fake.port()) + "/mcp";
  auto host = startHost({spec});
  auto result = host->server("remote")->call("remote__echo", R"({"text":"named"})", context());
  CHECK(result.ok);
  for (const auto& sent : fake.record().hosts)
    CHECK(sent == "localhost:" + std::to_string(fake.port()));
}

TEST_CASE("a response stream that ends early is resumed with Last-Event-ID after its retry delay",
          "[mcp]") {
  gantry::testing::FakeMcpHttp fake;
  fake.setRetryMs(300);
  auto host = startHost({httpSpec(fake)});
  auto result =
      host->server("remote")->call("remote__echo_resume", R"({"text":"resumed"})", context());
  CHECK(result.ok);
  CHECK(result.text == "resumed");
  const auto record = fake.record();
  CHECK(resumedAnswers(record) == 1);
  REQUIRE(record.resume_gaps_ms.size() == 1);
  CHECK(record.resume_gaps_ms[0] >= 280);  // waited the server's delay (a lower bound only)
}

TEST_CASE("a response stream that ends with no answer and no event id fails the call at once",
          "[mcp]") {
  gantry::testing::FakeMcpHttp fake;
  auto host = startHost({httpSpec(fake)});
  auto result = host->server("remote")->call("remote__drop_sse", "{}", context());
  CHECK_FALSE(result.ok);
  CHECK_THAT(result.text, Catch::Contains("no event id to resume from"));
}

TEST_CASE("a call given up while its stream waits to resume ends without the resuming GET",
          "[mcp]") {
  gantry::testing::FakeMcpHttp fake;
  fake.setRetryMs(60000);
  auto host = startHost({httpSpec(fake)});
  auto result = host->server("remote")->call("remote__echo_resume", "{}",
                                             context(std::chrono::milliseconds(300)));
  CHECK_FALSE(result.ok);
  host.reset();  // closing must not wait out the retry delay either
  const auto record = fake.record();
  CHECK(resumedAnswers(record) == 0);
}

TEST_CASE("server messages on the standing GET stream reach the client", "[mcp]") {
  gantry::testing::FakeMcpHttp fake;
  auto host = startHost({httpSpec(fake)});
  REQUIRE(eventually([&] { return fake.record().open_streams == 1; }));
  fake.push(R"({"jsonrpc":"2.0","method":"notifications/tools/list_changed"})");
  CHECK(eventually([&] {
    const auto methods = fake.record().methods;
    return std::count(methods.begin(), methods.end(), "tools/list") >= 2;
  }));
}

TEST_CASE("a server without a GET stream (405) is not asked for one again", "[mcp]") {
  gantry::testing::FakeMcpHttp fake;
  fake.refuseGet();
  LogCapture logs;
  auto host = startHost({httpSpec(fake)});
  REQUIRE(eventually([&] { return fake.record().gets == 1; }));
  auto result = host->server("remote")->call("remote__echo", R"({"text":"still"})", context());
  CHECK(result.ok);
  std::this_thread::sleep_for(std::chrono::milliseconds(1500));
  CHECK(fake.record().gets == 1);
  CHECK_FALSE(logs.contains("\"level\":\"warn\""));
}
