#pragma once
/// The address check of gantry-fetch: is an address one a fetch must never reach? The table
/// is the IANA IPv4 and IPv6 Special-Purpose Address Registries (every entry, whatever its
/// "globally reachable" flag: none of them is a web site), plus the multicast blocks, the
/// deprecated site-local block and the cloud metadata addresses. IPv4 carried in IPv6
/// (mapped, IPv4-compatible, NAT64, 6to4, Teredo) is checked as the IPv4 it carries. Pure.

#include <array>
#include <cstdint>
#include <optional>
#include <string>

namespace gantry::fetch {

/// An IPv4 or IPv6 address as bytes (IPv4 in the first 4).
struct IpAddress {
  bool v6 = false;
  std::array<std::uint8_t, 16> bytes{};

  /// Parses the canonical text forms (inet_pton); nullopt otherwise.
  static std::optional<IpAddress> parse(const std::string& text);
  std::string text() const;
};

/// An address block: a prefix and its length in bits.
struct Block {
  IpAddress base;
  int bits = 0;

  /// Parses "addr/len"; nullopt on anything else.
  static std::optional<Block> parse(const std::string& cidr);
  bool contains(const IpAddress& address) const;
};

/// Why address is special ("127.0.0.1 is in 127.0.0.0/8 Loopback (RFC 1122)"), or nullopt
/// for an ordinary global unicast address.
std::optional<std::string> specialPurpose(const IpAddress& address);

/// The IPv4 address carried by an IPv6 form that embeds one, or nullopt.
std::optional<IpAddress> embeddedIpv4(const IpAddress& address);

/// True for the loopback blocks (127.0.0.0/8, ::1, and IPv4 loopback carried in IPv6).
bool isLoopback(const IpAddress& address);

/// True for the cloud metadata addresses, which no allowance lifts.
bool isMetadata(const IpAddress& address);

}  // namespace gantry::fetch
