#include "fetch/allowlist.h"

#include <catch2/catch.hpp>

#include "fetch/host_resolver.h"

using gantry::fetch::Allowlist;

TEST_CASE("an allowlisted host matches exactly, never its subdomains", "[fetch]") {
  auto list = Allowlist::parse({"example.com"});
  REQUIRE(list.isOk());
  CHECK(list->match("example.com", 80, 80) != nullptr);
  CHECK(list->match("sub.example.com", 80, 80) == nullptr);
  CHECK(list->match("evilexample.com", 80, 80) == nullptr);
  CHECK(list->match("example.com.evil.net", 80, 80) == nullptr);
}

TEST_CASE("a *.domain entry matches subdomains but not the domain itself", "[fetch]") {
  auto list = Allowlist::parse({"*.docs.example.org"});
  CHECK(list->match("a.docs.example.org", 80, 80) != nullptr);
  CHECK(list->match("a.b.docs.example.org", 80, 80) != nullptr);
  CHECK(list->match("docs.example.org", 80, 80) == nullptr);
  CHECK(list->match("xdocs.example.org", 80, 80) == nullptr);
}

TEST_CASE("hosts are compared in lower case without a trailing dot", "[fetch]") {
  auto list = Allowlist::parse({"Example.COM."});
  CHECK(list->match(gantry::fetch::normaliseHost("EXAMPLE.com."), 80, 80) != nullptr);
}

TEST_CASE("a private range is granted to one named host only", "[fetch]") {
  auto list = Allowlist::parse({"nas.lan=192.168.1.0/24", "nas.lan=10.0.0.0/8", "web.lan"});
  REQUIRE(list.isOk());
  CHECK(list->match("nas.lan", 80, 80)->private_ranges.size() == 2);
  CHECK(list->match("web.lan", 80, 80)->private_ranges.empty());
  CHECK_FALSE(Allowlist::parse({"*.lan=192.168.1.0/24"}).isOk());
  CHECK(Allowlist::parse({"nas.lan=192.168.1.0/99"}).status().message() ==
        "--allow nas.lan=192.168.1.0/99: '192.168.1.0/99' is not a CIDR block");
  CHECK_FALSE(Allowlist::parse({"exa mple.com"}).isOk());
  CHECK_FALSE(Allowlist::parse({""}).isOk());
}

TEST_CASE("a rule allows the scheme's default port unless it names one", "[fetch]") {
  auto list = Allowlist::parse({"example.com", "api.test:8443", "[::1]:8080", "*.docs.test:81"});
  REQUIRE(list.isOk());
  CHECK(list->match("example.com", 80, 80) != nullptr);
  CHECK(list->match("example.com", 443, 443) != nullptr);
  CHECK(list->match("example.com", 22, 80) == nullptr);
  CHECK(list->match("example.com", 8080, 443) == nullptr);
  CHECK(list->listsHost("example.com"));
  CHECK(list->match("api.test", 8443, 443) != nullptr);
  CHECK(list->match("api.test", 443, 443) == nullptr);
  CHECK(list->match("::1", 8080, 80) != nullptr);
  CHECK(list->match("::1", 80, 80) == nullptr);
  CHECK(list->match("a.docs.test", 81, 80) != nullptr);
  CHECK(list->match("a.docs.test", 80, 80) == nullptr);
  auto both = Allowlist::parse({"example.com", "example.com:8443"});
  CHECK(both->match("example.com", 8443, 443) != nullptr);
  CHECK(both->match("example.com", 443, 443) != nullptr);
  // an IPv6 literal without brackets is a host alone, its colons no port
  CHECK(Allowlist::parse({"fd00::1"})->match("fd00::1", 80, 80) != nullptr);
  for (const char* bad : {"example.com:", "example.com:0", "example.com:65536", "example.com:8o",
                          "[::1", "[::1]8080", "[::1]:"}) {
    INFO(bad);
    CHECK_FALSE(Allowlist::parse({bad}).isOk());
  }
}

TEST_CASE("decimal, octal and hex IPv4 spellings are read as the address they mean", "[fetch]") {
  using gantry::fetch::numericHost;
  for (const char* spelling : {"2130706433", "0177.0.0.1", "0x7f.0.0.1", "127.1", "0x7f000001"}) {
    INFO(spelling);
    REQUIRE(numericHost(spelling));
    CHECK(numericHost(spelling)->text() == "127.0.0.1");
  }
  CHECK(numericHost("::ffff:127.0.0.1")->v6);
  CHECK_FALSE(numericHost("example.com"));
}
