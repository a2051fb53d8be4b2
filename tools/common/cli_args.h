#pragma once
/// Command-line parsing shared by the tool servers: `--flag`, `--key VALUE` and
/// `--key=VALUE`, repeated keys kept in order. Pure.

#include <cstdint>
#include <map>
#include <set>
#include <string>
#include <vector>

#include "gantry/status.h"

namespace gantry::toolserver {

/// Parsed options: values by key (in the order given) and the flags present.
struct CliArgs {
  std::map<std::string, std::vector<std::string>> values;
  std::set<std::string> flags;

  bool has(const std::string& flag) const { return flags.count(flag) > 0; }
  /// The last value of key, or fallback.
  std::string last(const std::string& key, const std::string& fallback = "") const;
  /// The last value of key as a positive integer, or fallback; fails on anything else.
  Result<std::uint64_t> number(const std::string& key, std::uint64_t fallback) const;
};

/// Parses argv[1..]: keys listed in valued take a value, those in flags take none; anything
/// else is a usage error naming the argument.
Result<CliArgs> parseCli(int argc, char** argv, const std::set<std::string>& valued,
                         const std::set<std::string>& flags);

}  // namespace gantry::toolserver
