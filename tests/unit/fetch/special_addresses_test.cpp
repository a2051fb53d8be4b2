#include "fetch/special_addresses.h"

#include <catch2/catch.hpp>

using gantry::fetch::IpAddress;
using gantry::fetch::specialPurpose;

namespace {

bool special(const char* text) {
  auto ip = IpAddress::parse(text);
  REQUIRE(ip);
  return specialPurpose(*ip).has_value();
}

}  // namespace

TEST_CASE("loopback, private, link-local, CGNAT, multicast and unspecified are special",
          "[fetch]") {
  for (const char* a : {"127.0.0.1",      "127.255.0.9", "10.1.2.3",    "172.16.0.1",
                        "172.31.255.255", "192.168.1.1", "169.254.1.1", "100.64.0.1",
                        "224.0.0.1",      "239.1.1.1",   "0.0.0.0",     "255.255.255.255",
                        "240.0.0.1",      "::1",         "::",          "fc00::1",
                        "fd12:3456::1",   "fe80::1",     "ff02::1",     "fec0::1"}) {
    INFO(a);
    CHECK(special(a));
  }
}

TEST_CASE("documentation and benchmarking blocks of both registries are special", "[fetch]") {
  for (const char* a : {"192.0.2.1", "198.51.100.7", "203.0.113.9", "198.18.0.1", "198.19.255.1",
                        "2001:db8::1", "3fff::1", "2001:2::1", "100::1", "192.0.0.8"}) {
    INFO(a);
    CHECK(special(a));
  }
}

TEST_CASE("cloud metadata addresses are special, even the globally routed ones", "[fetch]") {
  for (const char* a : {"169.254.169.254", "fd00:ec2::254", "168.63.129.16", "100.100.100.200"}) {
    auto ip = IpAddress::parse(a);
    CHECK(gantry::fetch::isMetadata(*ip));
    const auto why = *specialPurpose(*ip);
    CHECK((why.find("metadata") != std::string::npos ||
           why.find("cloud platform") != std::string::npos));
  }
}

TEST_CASE("IPv4 carried in IPv6 is judged as the IPv4 it carries", "[fetch]") {
  for (const char* a : {"::ffff:127.0.0.1", "::ffff:10.0.0.1", "::127.0.0.1", "64:ff9b::7f00:1",
                        "64:ff9b::a9fe:a9fe", "2002:7f00:1::", "2002:c0a8:101::1",
                        "2001:0:4136:e378:8000:63bf:80ff:fffe"}) {
    INFO(a);
    CHECK(special(a));
  }
  CHECK(*specialPurpose(*IpAddress::parse("::ffff:127.0.0.1")) ==
        "::ffff:127.0.0.1 carries 127.0.0.1 is in 127.0.0.0/8 Loopback (RFC 1122)");
  // Teredo carries its client address inverted.
  CHECK(gantry::fetch::embeddedIpv4(*IpAddress::parse("2001:0:4136:e378:8000:63bf:80ff:fffe"))
            ->text() == "127.0.0.1");
}

TEST_CASE("ordinary global addresses are not special, also through NAT64 and 6to4", "[fetch]") {
  for (const char* a :
       {"8.8.8.8", "1.1.1.1", "93.184.216.34", "2606:4700:4700::1111", "::ffff:8.8.8.8",
        "64:ff9b::808:808", "2002:808:808::1", "100.63.255.255", "172.32.0.1", "192.0.3.1"}) {
    INFO(a);
    CHECK_FALSE(special(a));
  }
}

TEST_CASE("CIDR blocks parse and contain exactly their addresses", "[fetch]") {
  auto block = gantry::fetch::Block::parse("192.168.1.0/24");
  REQUIRE(block);
  CHECK(block->contains(*IpAddress::parse("192.168.1.200")));
  CHECK_FALSE(block->contains(*IpAddress::parse("192.168.2.1")));
  CHECK_FALSE(block->contains(*IpAddress::parse("::ffff:192.168.1.1")));
  CHECK_FALSE(gantry::fetch::Block::parse("192.168.1.0/33"));
  CHECK_FALSE(gantry::fetch::Block::parse("192.168.1.0"));
  CHECK_FALSE(gantry::fetch::Block::parse("nas/24"));
}
