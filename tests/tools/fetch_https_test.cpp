// gantry-fetch through the real binary against a loopback HTTPS site whose certificate is
// signed by a CA made for the test (openssl CLI): the CA trusted through OpenSSL's standard
// SSL_CERT_FILE, the certificate refused when it is not, and refused when it names another
// host. The name gantry-fetch checks is the URL's, never the address it connects to.
#include <Poco/Net/Context.h>
#include <Poco/Net/HTTPRequestHandler.h>
#include <Poco/Net/HTTPRequestHandlerFactory.h>
#include <Poco/Net/HTTPServer.h>
#include <Poco/Net/HTTPServerRequest.h>
#include <Poco/Net/HTTPServerResponse.h>
#include <Poco/Net/SSLManager.h>
#include <Poco/Net/SecureServerSocket.h>

#include <catch2/catch.hpp>
#include <cstdlib>

#include "tools/support/scratch_dir.h"
#include "tools/support/server_process.h"

using gantry::testing::ScratchDir;
using gantry::testing::ServerProcess;
using gantry::testing::toolBinary;
using Poco::Net::HTTPServerRequest;
using Poco::Net::HTTPServerResponse;

namespace {

void run(const std::string& command) {
  INFO(command);
  REQUIRE(std::system((command + " >/dev/null 2>&1").c_str()) == 0);
}

/// A CA and a site certificate it signs for secure.test alone, written into dir.
void makeCertificates(const ScratchDir& dir) {
  const std::string openssl = "cd '" + dir.path() + "' && openssl ";
  const std::string ec_key = " -newkey ec -pkeyopt ec_paramgen_curve:prime256v1 -nodes";
  run(openssl + "req -x509" + ec_key +
      " -keyout ca.key -out ca.pem -days 2 -subj /CN=gantry-test-ca"
      " -addext basicConstraints=critical,CA:TRUE -addext keyUsage=critical,keyCertSign");
  run(openssl + "req" + ec_key + " -keyout site.key -out site.csr -subj /CN=secure.test");
  dir.write("site.ext", "subjectAltName=DNS:secure.test\nextendedKeyUsage=serverAuth\n");
  run(openssl +
      "x509 -req -in site.csr -CA ca.pem -CAkey ca.key -CAcreateserial -days 2"
      " -extfile site.ext -out site.pem");
}

class Page final : public Poco::Net::HTTPRequestHandler {
 public:
  void handleRequest(HTTPServerRequest& req, HTTPServerResponse& res) override {
    // A step down to plain http, on a port nothing listens on: it must not be followed.
    if (req.getURI() == "/to-http") {
      return res.redirect("http://secure.test:9/page", HTTPServerResponse::HTTP_FOUND);
    }
    const std::string body = "<html><head><title>Secure page</title></head><body>over TLS</body>";
    res.setContentType("text/html");
    res.setContentLength(static_cast<std::streamsize>(body.size()));
    res.send() << body;
  }
};

class Factory final : public Poco::Net::HTTPRequestHandlerFactory {
 public:
  Poco::Net::HTTPRequestHandler* createRequestHandler(const HTTPServerRequest&) override {
    return new Page;
  }
};

/// A loopback HTTPS site presenting the certificate for secure.test.
struct SecureSite {
  ScratchDir dir{"fetch-https"};
  std::unique_ptr<Poco::Net::SecureServerSocket> socket;
  std::unique_ptr<Poco::Net::HTTPServer> server;
  int port = 0;

  SecureSite() {
    Poco::Net::initializeSSL();
    makeCertificates(dir);
    Poco::Net::Context::Ptr context =
        new Poco::Net::Context(Poco::Net::Context::TLS_SERVER_USE, dir / "site.key",
                               dir / "site.pem", "", Poco::Net::Context::VERIFY_NONE);
    socket = std::make_unique<Poco::Net::SecureServerSocket>(
        Poco::Net::SocketAddress("127.0.0.1", 0), 64, context);
    port = socket->address().port();
    server = std::make_unique<Poco::Net::HTTPServer>(new Factory, *socket,
                                                     new Poco::Net::HTTPServerParams);
    server->start();
  }
  ~SecureSite() {
    server->stopAll(true);
    Poco::Net::uninitializeSSL();
  }
  SecureSite(const SecureSite&) = delete;
  SecureSite& operator=(const SecureSite&) = delete;

  std::string url(const std::string& host, const std::string& path = "/") const {
    return "https://" + host + ":" + std::to_string(port) + path;
  }
  /// gantry-fetch where secure.test and wrong.test name the site (a test resolver entry) and
  /// may reach it through an explicit per-host range; trusting the test CA when asked.
  ServerProcess fetcher(bool trust_ca) const {
    dir.write("hosts", "secure.test 127.0.0.1\nwrong.test 127.0.0.1\n");
    std::vector<std::string> env;
    if (trust_ca) env.push_back("SSL_CERT_FILE=" + dir / "ca.pem");
    return ServerProcess(
        toolBinary("gantry-fetch"),
        {"--allow", "secure.test:" + std::to_string(port) + "=127.0.0.0/8", "--allow",
         "secure.test:9", "--allow", "wrong.test:" + std::to_string(port) + "=127.0.0.0/8",
         "--allow", "127.0.0.1:" + std::to_string(port), "--allow-loopback", "--hosts",
         dir / "hosts"},
        env);
  }
};

std::string fetchArgs(const std::string& url) { return "{\"url\":\"" + url + "\"}"; }

}  // namespace

TEST_CASE("a page is fetched over https when the certificate chains to a trusted CA",
          "[fetch][https]") {
  SecureSite site;
  auto fetch = site.fetcher(true);
  const auto r = fetch.call("fetch", fetchArgs(site.url("secure.test")));
  INFO(r.text);
  CHECK_FALSE(r.is_error);
  CHECK(r.text.find("status: 200\n") != std::string::npos);
  CHECK(r.text.find("title: Secure page\n") != std::string::npos);
  CHECK(r.text.find("over TLS") != std::string::npos);
}

TEST_CASE("an https certificate from an untrusted CA is refused", "[fetch][https][attack]") {
  SecureSite site;
  auto fetch = site.fetcher(false);
  const auto r = fetch.call("fetch", fetchArgs(site.url("secure.test")));
  INFO(r.text);
  CHECK(r.is_error);
  CHECK(r.text.find("TLS: the certificate of 'secure.test' is not trusted") != std::string::npos);
  CHECK(r.text.find("over TLS") == std::string::npos);
}

TEST_CASE("an https certificate for another name is refused, loopback addresses included",
          "[fetch][https][attack]") {
  SecureSite site;
  auto fetch = site.fetcher(true);
  // 127.0.0.1 is a name the TLS library would skip the check for unless told to be strict.
  for (const char* host : {"wrong.test", "127.0.0.1"}) {
    const auto r = fetch.call("fetch", fetchArgs(site.url(host)));
    INFO(host << " -> " << r.text);
    CHECK(r.is_error);
    CHECK(r.text.find(std::string("TLS: the certificate is not valid for '") + host + "'") !=
          std::string::npos);
    CHECK(r.text.find("over TLS") == std::string::npos);
  }
}

TEST_CASE("a redirect from https down to plain http is refused, not followed",
          "[fetch][https][attack]") {
  SecureSite site;
  auto fetch = site.fetcher(true);
  const auto r = fetch.call("fetch", fetchArgs(site.url("secure.test", "/to-http")));
  INFO(r.text);
  CHECK(r.is_error);
  CHECK(r.text.find("redirect refused, not followed: http://secure.test:9/page would leave "
                    "https for plain http") != std::string::npos);
}
