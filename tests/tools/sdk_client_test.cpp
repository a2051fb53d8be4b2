// The bundled servers speak MCP to a client others wrote: the official TypeScript SDK
// client (tests/peers) lists and calls their tools over stdio.
#include <catch2/catch.hpp>
#include <cstdio>
#include <filesystem>

#include "peers/peers.h"
#include "tools/support/scratch_dir.h"
#include "tools/support/server_process.h"

using gantry::testing::ScratchDir;
using gantry::testing::toolBinary;

namespace {

std::string sdkScript() {
  const auto script = gantry::testing::peers::dir() + "/sdk_client.mjs";
  const auto sdk =
      gantry::testing::peers::dir() + "/node_modules/@modelcontextprotocol/sdk/package.json";
  return std::filesystem::exists(gantry::testing::peers::node()) && std::filesystem::exists(sdk)
             ? script
             : "";
}

std::string run(const std::string& command) {
  std::string out;
  FILE* pipe = ::popen(command.c_str(), "r");
  char buffer[4096];
  while (pipe != nullptr && std::fgets(buffer, sizeof buffer, pipe) != nullptr) out += buffer;
  if (pipe != nullptr) ::pclose(pipe);
  return out;
}

}  // namespace

TEST_CASE("the official SDK client lists and calls gantry-workspace's tools",
          "[workspace][peers]") {
  const auto script = sdkScript();
  if (script.empty()) {
    WARN("skipped: node or tests/peers/node_modules missing (npm ci --prefix tests/peers)");
    return;
  }
  ScratchDir dir("sdk-ws");
  dir.write("hello.txt", "hello from the SDK test\n");
  const auto out = run(gantry::testing::peers::node() + " " + script +
                       " read_file '{\"path\":\"hello.txt\"}' -- " +
                       toolBinary("gantry-workspace") + " --root " + dir.path() + " --write");
  INFO(out);
  CHECK(out.find(R"("tools":["read_file","list_dir","search_files","file_info","write_file",)") !=
        std::string::npos);
  CHECK(out.find(R"("text":"hello from the SDK test\n")") != std::string::npos);
  CHECK(out.find(R"("isError":false)") != std::string::npos);
}

TEST_CASE("the official SDK client lists and calls gantry-fetch's tool", "[fetch][peers]") {
  const auto script = sdkScript();
  if (script.empty()) {
    WARN("skipped: node or tests/peers/node_modules missing (npm ci --prefix tests/peers)");
    return;
  }
  const auto out = run(gantry::testing::peers::node() + " " + script +
                       " fetch '{\"url\":\"http://127.0.0.1/\"}' -- " + toolBinary("gantry-fetch") +
                       " --allow 127.0.0.1");
  INFO(out);
  CHECK(out.find(R"("tools":["fetch"])") != std::string::npos);
  CHECK(out.find(R"("isError":true)") != std::string::npos);
  CHECK(out.find("special-purpose address") != std::string::npos);
}
