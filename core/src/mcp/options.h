#pragma once
/// Tunables of the MCP host. Defaults suit production; tests shorten the intervals.

#include <chrono>
#include <cstddef>

#include "sandbox/server_sandbox.h"

namespace gantry::mcp {

struct McpOptions {
  /// How long start() waits, in total, for servers to come up; slower ones join later.
  std::chrono::milliseconds boot_wait{10000};
  std::chrono::milliseconds init_timeout{30000};           ///< initialize and tools/list
  std::chrono::milliseconds health_interval{30000};        ///< ping period while idle
  std::chrono::milliseconds health_timeout{10000};         ///< no pong within this = hung
  std::chrono::milliseconds backoff_initial{500};          ///< first restart delay, doubled
  std::chrono::milliseconds backoff_max{30000};            ///< restart delay cap
  std::size_t message_cap = std::size_t{4} * 1024 * 1024;  ///< largest accepted message
  /// MCP_SANDBOX and the paths no server may reach; off by default (the daemon and
  /// `gantry tools`/`gantry auth` turn it on from the configuration).
  sandbox::Settings sandbox;
  int landlock_abi = 0;  ///< set by McpHost::start when the sandbox is on
};

}  // namespace gantry::mcp
