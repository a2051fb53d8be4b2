#include "fetch/special_addresses.h"

#include <arpa/inet.h>

#include <charconv>
#include <vector>

namespace gantry::fetch {
namespace {

/// One row of the table: the block as the registry writes it, its name and source.
struct Row {
  const char* block;
  const char* name;
};

// IANA IPv4 Special-Purpose Address Registry (iana-ipv4-special-registry), every entry.
constexpr Row kIpv4Registry[] = {
    {"0.0.0.0/8", "\"This network\" (RFC 791)"},
    {"0.0.0.0/32", "\"This host on this network\" (RFC 1122)"},
    {"10.0.0.0/8", "Private-Use (RFC 1918)"},
    {"100.64.0.0/10", "Shared Address Space, CGNAT (RFC 6598)"},
    {"127.0.0.0/8", "Loopback (RFC 1122)"},
    {"169.254.0.0/16", "Link Local (RFC 3927)"},
    {"172.16.0.0/12", "Private-Use (RFC 1918)"},
    {"192.0.0.0/24", "IETF Protocol Assignments (RFC 6890)"},
    {"192.0.0.0/29", "IPv4 Service Continuity Prefix (RFC 7335)"},
    {"192.0.0.8/32", "IPv4 dummy address (RFC 7600)"},
    {"192.0.0.9/32", "Port Control Protocol Anycast (RFC 7723)"},
    {"192.0.0.10/32", "Traversal Using Relays around NAT Anycast (RFC 8155)"},
    {"192.0.0.170/32", "NAT64/DNS64 Discovery (RFC 8880)"},
    {"192.0.0.171/32", "NAT64/DNS64 Discovery (RFC 8880)"},
    {"192.0.2.0/24", "Documentation, TEST-NET-1 (RFC 5737)"},
    {"192.31.196.0/24", "AS112-v4 (RFC 7535)"},
    {"192.52.193.0/24", "AMT (RFC 7450)"},
    {"192.88.99.0/24", "Deprecated 6to4 Relay Anycast (RFC 7526)"},
    {"192.168.0.0/16", "Private-Use (RFC 1918)"},
    {"192.175.48.0/24", "Direct Delegation AS112 Service (RFC 7534)"},
    {"198.18.0.0/15", "Benchmarking (RFC 2544)"},
    {"198.51.100.0/24", "Documentation, TEST-NET-2 (RFC 5737)"},
    {"203.0.113.0/24", "Documentation, TEST-NET-3 (RFC 5737)"},
    {"240.0.0.0/4", "Reserved (RFC 1112)"},
    {"255.255.255.255/32", "Limited Broadcast (RFC 8190, RFC 919)"},
    // Not in the special-purpose registry, but never a web server:
    {"224.0.0.0/4", "Multicast (RFC 5771, IANA IPv4 Multicast Address Space)"},
};

// IANA IPv6 Special-Purpose Address Registry (iana-ipv6-special-registry), every entry
// except the forms that carry an IPv4 address (::ffff:0:0/96, 64:ff9b::/96, 2002::/16),
// which are judged by the address they carry.
constexpr Row kIpv6Registry[] = {
    {"::1/128", "Loopback Address (RFC 4291)"},
    {"::/128", "Unspecified Address (RFC 4291)"},
    {"64:ff9b:1::/48", "IPv4-IPv6 Translat., local use (RFC 8215)"},
    {"100::/64", "Discard-Only Address Block (RFC 6666)"},
    {"100:0:0:1::/64", "Dummy IPv6 Prefix (IANA registry)"},
    {"2001::/23", "IETF Protocol Assignments (RFC 2928)"},
    {"2001::/32", "TEREDO (RFC 4380, RFC 8190)"},
    {"2001:1::1/128", "Port Control Protocol Anycast (RFC 7723)"},
    {"2001:1::2/128", "Traversal Using Relays around NAT Anycast (RFC 8155)"},
    {"2001:1::3/128", "DNS-SD Service Registration Protocol Anycast (RFC 9665)"},
    {"2001:2::/48", "Benchmarking (RFC 5180)"},
    {"2001:3::/32", "AMT (RFC 7450)"},
    {"2001:4:112::/48", "AS112-v6 (RFC 7535)"},
    {"2001:10::/28", "Deprecated ORCHID (RFC 4843)"},
    {"2001:20::/28", "ORCHIDv2 (RFC 7343)"},
    {"2001:30::/28", "Drone Remote ID Protocol Entity Tags (RFC 9374)"},
    {"2001:db8::/32", "Documentation (RFC 3849)"},
    {"2620:4f:8000::/48", "Direct Delegation AS112 Service (RFC 7534)"},
    {"3fff::/20", "Documentation (RFC 9637)"},
    {"5f00::/16", "Segment Routing (SRv6) SIDs (RFC 9602)"},
    {"fc00::/7", "Unique-Local (RFC 4193, RFC 8190)"},
    {"fe80::/10", "Link-Local Unicast (RFC 4291)"},
    // Not in the special-purpose registry, but never a web server:
    {"fec0::/10", "Deprecated site-local (RFC 3879, IANA IPv6 Address Space)"},
    {"ff00::/8", "Multicast (RFC 4291, IANA IPv6 Address Space)"},
};

// Cloud instance metadata services (some are ordinary global addresses).
constexpr Row kMetadata[] = {
    {"169.254.169.254/32", "cloud metadata service (AWS, GCP, Azure, OpenStack)"},
    {"fd00:ec2::254/128", "cloud metadata service (AWS IPv6)"},
    {"168.63.129.16/32", "cloud platform service (Azure WireServer)"},
    {"100.100.100.200/32", "cloud metadata service (Alibaba Cloud)"},
};

struct Entry {
  Block block;
  std::string name;
};

template <std::size_t N>
void load(const Row (&rows)[N], std::vector<Entry>* out) {
  for (const auto& row : rows) out->push_back({*Block::parse(row.block), row.name});
}

const std::vector<Entry>& table() {
  static const std::vector<Entry> entries = [] {
    std::vector<Entry> all;
    load(kMetadata, &all);  // first, so a metadata address is named as one
    load(kIpv4Registry, &all);
    load(kIpv6Registry, &all);
    return all;
  }();
  return entries;
}

const std::vector<Entry>& metadata() {
  static const std::vector<Entry> entries = [] {
    std::vector<Entry> all;
    load(kMetadata, &all);
    return all;
  }();
  return entries;
}

IpAddress ipv4(const std::uint8_t* b, bool invert = false) {
  IpAddress out;
  for (int i = 0; i < 4; ++i) out.bytes[i] = invert ? static_cast<std::uint8_t>(~b[i]) : b[i];
  return out;
}

bool startsWith(const IpAddress& a, std::initializer_list<std::uint8_t> prefix) {
  std::size_t i = 0;
  for (auto b : prefix) {
    if (a.bytes[i++] != b) return false;
  }
  return true;
}

}  // namespace

std::optional<IpAddress> IpAddress::parse(const std::string& text) {
  IpAddress out;
  if (::inet_pton(AF_INET, text.c_str(), out.bytes.data()) == 1) return out;
  out.v6 = true;
  if (::inet_pton(AF_INET6, text.c_str(), out.bytes.data()) == 1) return out;
  return std::nullopt;
}

std::string IpAddress::text() const {
  char buffer[INET6_ADDRSTRLEN];
  ::inet_ntop(v6 ? AF_INET6 : AF_INET, bytes.data(), buffer, sizeof buffer);
  return buffer;
}

std::optional<Block> Block::parse(const std::string& cidr) {
  const auto slash = cidr.find('/');
  if (slash == std::string::npos) return std::nullopt;
  auto base = IpAddress::parse(cidr.substr(0, slash));
  int bits = -1;
  const auto len = cidr.substr(slash + 1);
  auto [end, ec] = std::from_chars(len.data(), len.data() + len.size(), bits);
  if (!base || ec != std::errc() || end != len.data() + len.size()) return std::nullopt;
  if (bits < 0 || bits > (base->v6 ? 128 : 32)) return std::nullopt;
  return Block{*base, bits};
}

bool Block::contains(const IpAddress& address) const {
  if (address.v6 != base.v6) return false;
  for (int bit = 0; bit < bits; ++bit) {
    const int mask = 0x80 >> (bit % 8);
    if ((address.bytes[bit / 8] & mask) != (base.bytes[bit / 8] & mask)) return false;
  }
  return true;
}

std::optional<IpAddress> embeddedIpv4(const IpAddress& a) {
  if (!a.v6) return std::nullopt;
  const auto& b = a.bytes;
  const bool zero80 = startsWith(a, {0, 0, 0, 0, 0, 0, 0, 0, 0, 0});
  if (zero80 && b[10] == 0xff && b[11] == 0xff) return ipv4(&b[12]);  // ::ffff:0:0/96 mapped
  if (zero80 && b[10] == 0 && b[11] == 0 &&
      !startsWith(a, {0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0})) {
    return ipv4(&b[12]);  // ::a.b.c.d, deprecated IPv4-compatible (not :: or ::1)
  }
  if (startsWith(a, {0, 0x64, 0xff, 0x9b, 0, 0, 0, 0, 0, 0, 0, 0})) return ipv4(&b[12]);  // NAT64
  if (startsWith(a, {0x20, 0x02})) return ipv4(&b[2]);                                    // 6to4
  if (startsWith(a, {0x20, 0x01, 0, 0})) return ipv4(&b[12], true);  // Teredo client (inverted)
  return std::nullopt;
}

std::optional<std::string> specialPurpose(const IpAddress& address) {
  if (auto inner = embeddedIpv4(address)) {
    if (auto why = specialPurpose(*inner)) return address.text() + " carries " + *why;
  }
  for (const auto& entry : table()) {
    if (entry.block.contains(address)) {
      return address.text() + " is in " + entry.block.base.text() + "/" +
             std::to_string(entry.block.bits) + " " + entry.name;
    }
  }
  return std::nullopt;
}

bool isLoopback(const IpAddress& address) {
  if (auto inner = embeddedIpv4(address)) return isLoopback(*inner);
  return Block::parse("127.0.0.0/8")->contains(address) ||
         Block::parse("::1/128")->contains(address);
}

bool isMetadata(const IpAddress& address) {
  if (auto inner = embeddedIpv4(address)) return isMetadata(*inner);
  for (const auto& entry : metadata()) {
    if (entry.block.contains(address)) return true;
  }
  return false;
}

}  // namespace gantry::fetch
