#include "fetch/allowlist.h"

#include <algorithm>
#include <cctype>

namespace gantry::fetch {
namespace {

bool validHostChar(char c) {
  return std::isalnum(static_cast<unsigned char>(c)) || c == '-' || c == '.' || c == ':' ||
         c == '_';
}

bool namesHost(const AllowRule& rule, const std::string& host) {
  if (rule.host == host) return true;
  if (rule.host.rfind("*.", 0) != 0) return false;
  const std::string suffix = rule.host.substr(1);  // ".example.com"
  return host.size() > suffix.size() &&
         host.compare(host.size() - suffix.size(), suffix.size(), suffix) == 0;
}

std::optional<std::uint16_t> parsePort(const std::string& digits) {
  if (digits.empty() || digits.size() > 5 ||
      !std::all_of(digits.begin(), digits.end(), [](char c) { return c >= '0' && c <= '9'; })) {
    return std::nullopt;
  }
  const int port = std::stoi(digits);
  if (port < 1 || port > 65535) return std::nullopt;
  return static_cast<std::uint16_t>(port);
}

/// Splits "host", "host:port", "[v6]" or "[v6]:port"; an IPv6 literal without brackets (more
/// than one colon) is a host alone. False when a port is given but is not one.
bool splitPort(const std::string& spec, AllowRule* rule) {
  std::string host = spec;
  std::string port;
  if (spec.rfind('[', 0) == 0) {
    const auto close = spec.find(']');
    if (close == std::string::npos) return false;
    host = spec.substr(1, close - 1);
    const std::string rest = spec.substr(close + 1);
    if (!rest.empty() && rest.front() != ':') return false;
    if (!rest.empty()) port = rest.substr(1);
    if (!rest.empty() && port.empty()) return false;
  } else if (std::count(spec.begin(), spec.end(), ':') == 1) {
    host = spec.substr(0, spec.find(':'));
    port = spec.substr(spec.find(':') + 1);
    if (port.empty()) return false;
  }
  rule->host = normaliseHost(host);
  if (port.empty()) return true;
  rule->port = parsePort(port);
  return rule->port.has_value();
}

Result<AllowRule> parseRule(const std::string& entry) {
  const auto eq = entry.find('=');
  AllowRule rule;
  const bool port_ok = splitPort(entry.substr(0, eq), &rule);
  const std::string name = rule.host.rfind("*.", 0) == 0 ? rule.host.substr(2) : rule.host;
  if (!port_ok || name.empty() || !std::all_of(name.begin(), name.end(), validHostChar)) {
    return Status::error("--allow " + entry +
                         ": expected a host name, *.domain, host:port or host=CIDR");
  }
  if (eq == std::string::npos) return rule;
  auto block = Block::parse(entry.substr(eq + 1));
  if (!block)
    return Status::error("--allow " + entry + ": '" + entry.substr(eq + 1) +
                         "' is not a CIDR block");
  if (rule.host.rfind("*.", 0) == 0)
    return Status::error("--allow " + entry + ": a private range needs one named host");
  rule.private_ranges.push_back(*block);
  return rule;
}

}  // namespace

std::string normaliseHost(const std::string& host) {
  std::string out = host;
  std::transform(out.begin(), out.end(), out.begin(),
                 [](unsigned char c) { return std::tolower(c); });
  while (!out.empty() && out.back() == '.') out.pop_back();
  return out;
}

Result<Allowlist> Allowlist::parse(const std::vector<std::string>& entries) {
  Allowlist list;
  for (const auto& entry : entries) {
    auto rule = parseRule(entry);
    if (!rule.isOk()) return rule.status();
    auto same = std::find_if(list.rules_.begin(), list.rules_.end(), [&](const AllowRule& r) {
      return r.host == rule->host && r.port == rule->port;
    });
    if (same == list.rules_.end()) {
      list.rules_.push_back(std::move(rule.value()));
    } else {
      same->private_ranges.insert(same->private_ranges.end(), rule->private_ranges.begin(),
                                  rule->private_ranges.end());
    }
  }
  return list;
}

const AllowRule* Allowlist::match(const std::string& host, std::uint16_t port,
                                  std::uint16_t default_port) const {
  for (const auto& rule : rules_) {
    if (namesHost(rule, host) && rule.port.value_or(default_port) == port) return &rule;
  }
  return nullptr;
}

bool Allowlist::listsHost(const std::string& host) const {
  return std::any_of(rules_.begin(), rules_.end(),
                     [&](const AllowRule& rule) { return namesHost(rule, host); });
}

}  // namespace gantry::fetch
