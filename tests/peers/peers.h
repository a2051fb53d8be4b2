#pragma once
/// The protocol peers installed by `npm ci --prefix tests/peers`: the official MCP servers,
/// the MCP conformance harness, and the Node.js they run on. That Node comes from npm too
/// (node-linux-*), pinned, so a machine's own Node (Debian 12 ships 18, which lacks the
/// global WebCrypto the peers need) never decides a result.

#include <filesystem>
#include <string>

namespace gantry::testing::peers {

inline std::string dir() { return std::string(GANTRY_SOURCE_DIR) + "/tests/peers"; }

/// The pinned node binary (it may be missing when the peers are not installed).
inline std::string node() { return dir() + "/node_modules/.bin/node"; }

/// The entry script of @modelcontextprotocol/<package>, or empty when the peers (or their
/// Node) are not installed.
inline std::string script(const std::string& package) {
  const auto path = dir() + "/node_modules/@modelcontextprotocol/" + package + "/dist/index.js";
  return std::filesystem::exists(node()) && std::filesystem::exists(path) ? path : std::string();
}

}  // namespace gantry::testing::peers
