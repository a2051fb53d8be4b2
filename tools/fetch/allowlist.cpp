#include "fetch/allowlist.h"

#include <algorithm>
#include <cctype>

namespace gantry::fetch {
namespace {

bool validHostChar(char c) {
  return std::isalnum(static_cast<unsigned char>(c)) || c == '-' || c == '.' || c == ':' ||
         c == '_';
}

Result<AllowRule> parseRule(const std::string& entry) {
  const auto eq = entry.find('=');
  AllowRule rule{normaliseHost(entry.substr(0, eq)), {}};
  const std::string name = rule.host.rfind("*.", 0) == 0 ? rule.host.substr(2) : rule.host;
  if (name.empty() || !std::all_of(name.begin(), name.end(), validHostChar)) {
    return Status::error("--allow " + entry + ": expected a host name, *.domain or host=CIDR");
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
    auto same = std::find_if(list.rules_.begin(), list.rules_.end(),
                             [&](const AllowRule& r) { return r.host == rule->host; });
    if (same == list.rules_.end()) {
      list.rules_.push_back(std::move(rule.value()));
    } else {
      same->private_ranges.insert(same->private_ranges.end(), rule->private_ranges.begin(),
                                  rule->private_ranges.end());
    }
  }
  return list;
}

const AllowRule* Allowlist::match(const std::string& host) const {
  for (const auto& rule : rules_) {
    if (rule.host == host) return &rule;
    if (rule.host.rfind("*.", 0) == 0) {
      const std::string suffix = rule.host.substr(1);  // ".example.com"
      if (host.size() > suffix.size() &&
          host.compare(host.size() - suffix.size(), suffix.size(), suffix) == 0) {
        return &rule;
      }
    }
  }
  return nullptr;
}

}  // namespace gantry::fetch
