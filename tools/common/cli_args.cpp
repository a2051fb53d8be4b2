#include "common/cli_args.h"

#include <charconv>

namespace gantry::toolserver {

std::string CliArgs::last(const std::string& key, const std::string& fallback) const {
  auto it = values.find(key);
  return it == values.end() || it->second.empty() ? fallback : it->second.back();
}

Result<std::uint64_t> CliArgs::number(const std::string& key, std::uint64_t fallback) const {
  const auto text = last(key);
  if (text.empty()) return fallback;
  std::uint64_t value = 0;
  auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (ec != std::errc() || end != text.data() + text.size() || value == 0) {
    return Status::error("--" + key + ": expected a positive integer, got '" + text + "'");
  }
  return value;
}

Result<CliArgs> parseCli(int argc, char** argv, const std::set<std::string>& valued,
                         const std::set<std::string>& flags) {
  CliArgs out;
  for (int i = 1; i < argc; ++i) {
    std::string arg = argv[i];
    if (arg.rfind("--", 0) != 0) return Status::error("unexpected argument '" + arg + "'");
    arg = arg.substr(2);
    const auto eq = arg.find('=');
    const std::string key = arg.substr(0, eq);
    if (flags.count(key) && eq == std::string::npos) {
      out.flags.insert(key);
    } else if (valued.count(key) && eq != std::string::npos) {
      out.values[key].push_back(arg.substr(eq + 1));
    } else if (valued.count(key) && i + 1 < argc) {
      out.values[key].push_back(argv[++i]);
    } else {
      return Status::error("unknown or incomplete option '--" + arg + "'");
    }
  }
  return out;
}

}  // namespace gantry::toolserver
