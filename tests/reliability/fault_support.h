#pragma once
// The fault matrix (tests/reliability/fault_*_test.cpp): each fault is injected by a fake
// into the real binary, and the same three things are asked every time: the process survives
// (the next message is answered), the owner is told once, nothing is lost (the record holds
// no stuck rows and passes its integrity check).

#include <chrono>
#include <cstdint>
#include <string>

#include "e2e/support/gantry_process.h"
#include "reliability/record_probe.h"

namespace gantry::faults {

using namespace std::chrono_literals;

/// The fake MCP server built beside the tests.
inline const std::string kFakeMcp = GANTRY_BUILD_DIR "/tests/fakes/mcp/fake_mcp_server";

/// A manifest with one stdio server named "fake" running the fake MCP server with args
/// (each a TOML string literal's contents).
std::string fakeMcpManifest(const std::string& args_toml = "");

/// A reply calling tool name with arguments (JSON text), as a fake model script line.
std::string toolCallLine(const std::string& name, const std::string& args_json = "{}",
                         const std::string& id = "c1");

/// The record of a workspace: no stuck rows, integrity ok.
bool recordSound(const e2e::Workspace& workspace, std::string* why);

/// A port nothing listens on (bound once, then released).
std::uint16_t closedPort();

/// Runs `gantry status` against env; the exit code, with its output in *out.
int status(const e2e::Env& env, std::string* out);

}  // namespace gantry::faults
