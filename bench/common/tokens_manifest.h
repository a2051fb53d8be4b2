#pragma once
// The mcp.toml of five bench_tokens servers of ten tools each (bench/tokens/servers.json),
// shaped like the official filesystem, git, memory, fetch and time servers. The including
// target defines TOKENS_SERVER (the server's path) and GANTRY_SOURCE_DIR.

#include <cstddef>
#include <string>

namespace gantry::bench {

inline constexpr const char* kTokensServers[] = {"filesystem", "git", "memory", "fetch", "time"};
inline constexpr std::size_t kTokensServerCount = std::size(kTokensServers);

inline std::string tokensManifest() {
  std::string text;
  for (const char* name : kTokensServers) {
    text.append("[[server]]\nname = \"")
        .append(name)
        .append("\"\ncommand = \"" TOKENS_SERVER "\"\nargs = [\"" GANTRY_SOURCE_DIR
                "/bench/tokens/servers.json\", \"")
        .append(name)
        .append("\"]\n\n");
  }
  return text;
}

}  // namespace gantry::bench
