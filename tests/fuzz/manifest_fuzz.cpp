// The MCP manifest loader (mcp/manifest.h): any file content loads or fails with a message
// naming the file; secret references resolve through a lookup that knows every name.

#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <string>

#include "fuzz_support.h"
#include "mcp/manifest.h"

namespace {

/// One file per fuzzing process, rewritten for every input.
const std::string& manifestPath() {
  static const std::string path = (std::filesystem::temp_directory_path() /
                                   ("gantry-fuzz-mcp-" + std::to_string(getpid()) + ".toml"))
                                      .string();
  return path;
}

gantry::Result<std::string> lookup(std::string_view name) {
  if (name.empty()) return gantry::Status::error("empty secret name");
  return std::string("value-of-") + std::string(name);
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string& path = manifestPath();
  {
    std::ofstream out(path, std::ios::binary | std::ios::trunc);
    out.write(reinterpret_cast<const char*>(data), static_cast<std::streamsize>(size));
  }
  const auto manifest = gantry::mcp::loadManifest(path, lookup);
  if (!manifest.isOk()) {
    gantry::fuzz::require(manifest.status().message().find(path) != std::string::npos,
                          "a manifest error names the file");
    return 0;
  }
  for (const auto& server : manifest.value().servers) {
    gantry::fuzz::require(server.isStdio() != !server.url.empty(),
                          "a server has exactly one of command and url");
    for (const auto& glob : server.tools) (void)gantry::mcp::globMatch(glob, server.name);
    (void)server.policyFor(server.name);
  }
  return 0;
}
