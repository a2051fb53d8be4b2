// gantry-fetch through the real binary against a loopback HTTP server (the only test
// target): the allowlist, the address checks before connecting and at every redirect,
// the connection to the checked address with Host set to the name, and the caps.
#include <Poco/DeflatingStream.h>
#include <Poco/Net/HTTPRequestHandler.h>
#include <Poco/Net/HTTPRequestHandlerFactory.h>
#include <Poco/Net/HTTPServer.h>
#include <Poco/Net/HTTPServerRequest.h>
#include <Poco/Net/HTTPServerResponse.h>
#include <Poco/Net/ServerSocket.h>
#include <Poco/ThreadPool.h>

#include <catch2/catch.hpp>
#include <map>
#include <mutex>
#include <thread>

#include "fakes/stop_promptly.h"
#include "tools/support/scratch_dir.h"
#include "tools/support/server_process.h"

using gantry::testing::ScratchDir;
using gantry::testing::ServerProcess;
using gantry::testing::toolBinary;
using Poco::Net::HTTPServerRequest;
using Poco::Net::HTTPServerResponse;

namespace {

/// What the site saw: requests per path and the last Host header.
struct Seen {
  std::mutex mutex;
  std::map<std::string, int> paths;
  std::string host;
};

class Site final : public Poco::Net::HTTPRequestHandler {
 public:
  Site(Seen& seen, int port) : seen_(seen), port_(port) {}
  void handleRequest(HTTPServerRequest& req, HTTPServerResponse& res) override {
    {
      std::lock_guard<std::mutex> lock(seen_.mutex);
      ++seen_.paths[req.getURI()];
      seen_.host = req.getHost();
    }
    route(req.getURI(), res);
  }

 private:
  void send(HTTPServerResponse& res, const std::string& type, const std::string& body) {
    res.setContentType(type);
    res.setContentLength(static_cast<std::streamsize>(body.size()));
    res.send() << body;
  }
  void redirect(HTTPServerResponse& res, const std::string& to) {
    res.redirect(to, HTTPServerResponse::HTTP_FOUND);
  }
  void route(const std::string& uri, HTTPServerResponse& res) {
    const std::string port = std::to_string(port_);
    if (uri == "/page") {
      return send(res, "text/html; charset=utf-8",
                  "<html><head><title>Local page</title><script>evil()</script></head><body>"
                  "<p>Hello <b>fetch</b>.</p><a href=\"/other\">Other</a></body></html>");
    }
    if (uri == "/plain") return send(res, "text/plain", "just text\n");
    if (uri == "/big") return send(res, "text/plain", std::string(5000, 'x'));
    if (uri == "/image") return send(res, "image/png", std::string("\x89PNG", 4));
    if (uri == "/gzip") return gzip(res);
    if (uri == "/drip") return drip(res);
    if (uri == "/to-ssh") return redirect(res, "http://good.test:22/page");
    if (uri == "/to-page") return redirect(res, "/page");
    if (uri == "/to-evil") return redirect(res, "http://evil.test:" + port + "/page");
    if (uri == "/to-loopback") return redirect(res, "http://127.0.0.1:" + port + "/page");
    if (uri == "/to-localhost") return redirect(res, "http://localhost:" + port + "/page");
    if (uri == "/to-hop") return redirect(res, "/hop");
    if (uri == "/hop") return redirect(res, "http://2130706433:" + port + "/page");
    if (uri.rfind("/loop/", 0) == 0)
      return redirect(res, "/loop/" + std::to_string(std::stoi(uri.substr(6)) + 1));
    res.setStatus(HTTPServerResponse::HTTP_NOT_FOUND);
    send(res, "text/plain", "not found");
  }
  void gzip(HTTPServerResponse& res) {
    res.setContentType("text/plain");
    res.set("Content-Encoding", "gzip");
    std::ostream& out = res.send();
    Poco::DeflatingOutputStream deflate(out, Poco::DeflatingStreamBuf::STREAM_GZIP);
    deflate << "inflated by the library\n";
    deflate.close();
  }
  /// A page that never ends: a byte every 200 ms until the client goes (or a minute passes).
  static void drip(HTTPServerResponse& res) {
    res.setContentType("text/plain");
    res.setChunkedTransferEncoding(true);
    std::ostream& out = res.send();
    for (int i = 0; i < 300 && out.good(); ++i) {
      out << 'x' << std::flush;
      std::this_thread::sleep_for(std::chrono::milliseconds(200));
    }
  }
  Seen& seen_;
  int port_;
};

class Factory final : public Poco::Net::HTTPRequestHandlerFactory {
 public:
  Factory(Seen& seen, int port) : seen_(seen), port_(port) {}
  Poco::Net::HTTPRequestHandler* createRequestHandler(const HTTPServerRequest&) override {
    return new Site(seen_, port_);
  }

 private:
  Seen& seen_;
  int port_;
};

/// A loopback HTTP site for one test.
struct LocalSite {
  Seen seen;
  Poco::Net::ServerSocket socket{Poco::Net::SocketAddress("127.0.0.1", 0)};
  int port = socket.address().port();
  Poco::ThreadPool threads{1, 16};  // joined on destruction: no handler outlives `seen`
  Poco::Net::HTTPServer server{new Factory(seen, port), threads, socket,
                               new Poco::Net::HTTPServerParams};
  LocalSite() { server.start(); }
  ~LocalSite() {
    gantry::testing::wakeAcceptLoop(server);
    server.stopAll(true);
    threads.joinAll();
  }
  std::string url(const std::string& host, const std::string& path) const {
    return "http://" + host + ":" + std::to_string(port) + path;
  }
  int count(const std::string& path) {
    std::lock_guard<std::mutex> lock(seen.mutex);
    return seen.paths[path];
  }
  std::string lastHost() {
    std::lock_guard<std::mutex> lock(seen.mutex);
    return seen.host;
  }
};

std::string fetchArgs(const std::string& url) { return "{\"url\":\"" + url + "\"}"; }

/// A fetch server where good.test (a test resolver entry) may reach the loopback site through
/// an explicit per-host range, and the other names are listed but get no allowance.
ServerProcess siteFetcher(const ScratchDir& dir, int port, std::vector<std::string> extra = {}) {
  dir.write("hosts", "good.test 127.0.0.1\nevil.test 127.0.0.1\n");
  const std::string p = ":" + std::to_string(port);
  std::vector<std::string> args = {"--allow", "good.test" + p + "=127.0.0.0/8",
                                   "--allow", "127.0.0.1" + p,
                                   "--allow", "localhost" + p,
                                   "--allow", "2130706433" + p,
                                   "--hosts", dir / "hosts"};
  args.insert(args.end(), extra.begin(), extra.end());
  return ServerProcess(toolBinary("gantry-fetch"), args);
}

}  // namespace

TEST_CASE("the default refuses loopback, private and metadata addresses in every spelling",
          "[fetch][attack]") {
  ScratchDir dir("fetch-default");
  dir.write("hosts", "rebind.test 127.0.0.1\nsneaky.test 93.184.216.34 10.0.0.5\n");
  std::vector<std::string> args = {"--hosts", dir / "hosts"};
  const std::vector<std::string> hosts = {"127.0.0.1",     "::1",
                                          "10.0.0.1",      "169.254.169.254",
                                          "localhost",     "rebind.test",
                                          "sneaky.test",   "2130706433",
                                          "0177.0.0.1",    "0x7f.0.0.1",
                                          "127.1",         "::ffff:127.0.0.1",
                                          "::ffff:7f00:1", "64:ff9b::a9fe:a9fe",
                                          "fd00:ec2::254", "100.100.100.200"};
  for (const auto& h : hosts) args.insert(args.end(), {"--allow", h});
  ServerProcess fetch(toolBinary("gantry-fetch"), args);
  for (const auto& h : hosts) {
    const std::string url =
        h.find(':') != std::string::npos ? "http://[" + h + "]/" : "http://" + h + "/";
    const auto r = fetch.call("fetch", fetchArgs(url));
    INFO(url << " -> " << r.text);
    CHECK(r.is_error);
    CHECK(r.text.find("special-purpose address") != std::string::npos);
  }
}

TEST_CASE("hosts not on the allowlist are refused, with no suffix matching", "[fetch]") {
  ServerProcess fetch(toolBinary("gantry-fetch"),
                      {"--allow", "example.com", "--allow", "*.docs.test"});
  for (const char* url : {"http://sub.example.com/", "http://example.com.evil.test/",
                          "http://docs.test/", "http://other.test/"}) {
    const auto r = fetch.call("fetch", fetchArgs(url));
    CHECK(r.is_error);
    CHECK(r.text.find("is not on the allowlist") != std::string::npos);
  }
  for (const char* url : {"file:///etc/passwd", "ftp://example.com/", "gopher://example.com/"}) {
    CHECK(fetch.call("fetch", fetchArgs(url)).text.find("only http and https") !=
          std::string::npos);
  }
  CHECK(fetch.call("fetch", fetchArgs("http://user:pw@example.com/")).text.find("credentials") !=
        std::string::npos);
}

TEST_CASE("a page is fetched from the checked address with Host set to the name", "[fetch]") {
  LocalSite site;
  ScratchDir dir("fetch-page");
  auto fetch = siteFetcher(dir, site.port);
  const auto r = fetch.call("fetch", fetchArgs(site.url("good.test", "/page")));
  INFO(r.text);
  CHECK_FALSE(r.is_error);
  CHECK(r.text.find("status: 200\n") != std::string::npos);
  CHECK(r.text.find("content-type: text/html; charset=utf-8\n") != std::string::npos);
  CHECK(r.text.find("title: Local page\n") != std::string::npos);
  CHECK(r.text.find("Hello fetch.") != std::string::npos);
  CHECK(r.text.find("evil()") == std::string::npos);
  CHECK(r.text.find("- Other <" + site.url("good.test", "/other") + ">") != std::string::npos);
  CHECK(site.lastHost() == "good.test:" + std::to_string(site.port));
}

TEST_CASE("redirects are followed under the same checks, at most five", "[fetch]") {
  LocalSite site;
  ScratchDir dir("fetch-redirect");
  auto fetch = siteFetcher(dir, site.port);
  const auto ok = fetch.call("fetch", fetchArgs(site.url("good.test", "/to-page")));
  CHECK(ok.text.find("url: " + site.url("good.test", "/page")) != std::string::npos);
  const auto loop = fetch.call("fetch", fetchArgs(site.url("good.test", "/loop/0")));
  CHECK(loop.is_error);
  CHECK(loop.text.find("more than 5 redirects") != std::string::npos);
  CHECK(site.count("/loop/5") == 1);
  CHECK(site.count("/loop/6") == 0);
}

TEST_CASE("a redirect to a host not on the list, or to loopback, is refused and not followed",
          "[fetch][attack]") {
  LocalSite site;
  ScratchDir dir("fetch-redirect-refused");
  auto fetch = siteFetcher(dir, site.port);
  const auto evil = fetch.call("fetch", fetchArgs(site.url("good.test", "/to-evil")));
  CHECK(evil.is_error);
  CHECK(evil.text.find("redirect refused, not followed") != std::string::npos);
  CHECK(evil.text.find("'evil.test' is not on the allowlist") != std::string::npos);
  for (const char* path : {"/to-loopback", "/to-localhost", "/to-hop"}) {
    const auto r = fetch.call("fetch", fetchArgs(site.url("good.test", path)));
    INFO(path << " -> " << r.text);
    CHECK(r.is_error);
    CHECK(r.text.find("special-purpose address") != std::string::npos);
  }
  CHECK(site.count("/page") == 0);
}

TEST_CASE("bodies are capped, gzip is decoded and non-text types are refused", "[fetch]") {
  LocalSite site;
  ScratchDir dir("fetch-caps");
  auto fetch = siteFetcher(dir, site.port, {"--max-bytes", "1000"});
  const auto big = fetch.call("fetch", fetchArgs(site.url("good.test", "/big")));
  CHECK(big.text.find("bytes: 1000\nnote: truncated at 1000 bytes (--max-bytes)\n") !=
        std::string::npos);
  const auto gz = fetch.call("fetch", fetchArgs(site.url("good.test", "/gzip")));
  CHECK(gz.text.find("inflated by the library") != std::string::npos);
  const auto image = fetch.call("fetch", fetchArgs(site.url("good.test", "/image")));
  CHECK(image.is_error);
  CHECK(image.text.find("content type image/png is not text") != std::string::npos);
  CHECK(
      fetch.call("fetch", fetchArgs(site.url("good.test", "/plain"))).text.find("\njust text\n") !=
      std::string::npos);
}

TEST_CASE("a redirect to another port of an allowed host is refused, not followed",
          "[fetch][attack]") {
  LocalSite site;
  ScratchDir dir("fetch-port");
  auto fetch = siteFetcher(dir, site.port);
  const auto r = fetch.call("fetch", fetchArgs(site.url("good.test", "/to-ssh")));
  INFO(r.text);
  CHECK(r.is_error);
  CHECK(r.text.find("redirect refused, not followed: fetch http://good.test:22/page: port 22 of "
                    "'good.test' is not on the allowlist") != std::string::npos);
  // the host alone allows only the scheme's default port
  ServerProcess host_only(toolBinary("gantry-fetch"),
                          {"--allow", "good.test=127.0.0.0/8", "--hosts", dir / "hosts"});
  const auto other = host_only.call("fetch", fetchArgs(site.url("good.test", "/page")));
  CHECK(other.is_error);
  CHECK(other.text.find("port " + std::to_string(site.port) + " of 'good.test'") !=
        std::string::npos);
  CHECK(site.count("/page") == 0);
}

TEST_CASE("a page that drips a byte at a time is cut at the whole-fetch deadline",
          "[fetch][attack]") {
  LocalSite site;
  ScratchDir dir("fetch-drip");
  auto fetch = siteFetcher(dir, site.port, {"--timeout", "2"});
  const auto r = fetch.call("fetch", fetchArgs(site.url("good.test", "/drip")));
  INFO(r.text);
  CHECK(r.is_error);
  CHECK(r.text.find("timed out after 2 s (--timeout)") != std::string::npos);
  CHECK(r.text.find("xxx") == std::string::npos);
}

TEST_CASE("the test-only --allow-loopback reaches 127.0.0.1 but never metadata", "[fetch]") {
  LocalSite site;
  ServerProcess fetch(toolBinary("gantry-fetch"),
                      {"--allow", "127.0.0.1:" + std::to_string(site.port), "--allow",
                       "169.254.169.254", "--allow-loopback"});
  CHECK_FALSE(fetch.call("fetch", fetchArgs(site.url("127.0.0.1", "/plain"))).is_error);
  CHECK(fetch.call("fetch", fetchArgs("http://169.254.169.254/latest/meta-data/")).is_error);
}

TEST_CASE("gantry-fetch without an allowlist refuses to start", "[fetch]") {
  CHECK(std::system((toolBinary("gantry-fetch") + " </dev/null 2>/dev/null").c_str()) == 2 << 8);
  CHECK(
      std::system((toolBinary("gantry-fetch") + " --allow 'a b' </dev/null 2>/dev/null").c_str()) ==
      2 << 8);
}
