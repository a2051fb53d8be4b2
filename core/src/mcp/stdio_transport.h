#pragma once
/// The stdio transport: the server is our child; newline-delimited JSON-RPC on its
/// stdin/stdout; its stderr is relayed into our log, bounded in line length and rate.

#include <atomic>
#include <memory>
#include <mutex>
#include <optional>
#include <thread>

#include "mcp/child_process.h"
#include "mcp/transport.h"
#include "sandbox/server_sandbox.h"

namespace gantry::mcp {

struct StdioOptions {
  std::string server;  ///< manifest name, for logs
  std::string command;
  std::vector<std::string> args;
  Environment env;                             ///< the complete child environment
  std::optional<sandbox::ServerPlan> sandbox;  ///< set: the server starts inside it
  std::size_t line_cap = std::size_t{4} * 1024 * 1024;
  std::size_t stderr_line_max = 1000;  ///< longer stderr lines are cut
  int stderr_lines_per_second = 20;    ///< sustained relay rate (burst of 5 s worth)
};

class StdioTransport final : public Transport {
 public:
  explicit StdioTransport(StdioOptions options);
  ~StdioTransport() override;

  Status open(TransportHandler* handler) override;
  /// Writes one line, waiting at most timeout (10 s when zero) for a child that is slow to
  /// read; thread-safe (one writer at a time).
  Status send(const std::string& text, std::optional<std::int64_t> request_id,
              std::chrono::milliseconds timeout) override;
  void close() override;
  void kill() override;
  const char* kind() const override { return "stdio"; }

 private:
  static constexpr std::chrono::milliseconds kDefaultWriteTimeout{10000};

  void readStdout();
  void readStderr();
  void relayStderr(std::string_view line);
  void joinReaders();

  StdioOptions options_;
  TransportHandler* handler_ = nullptr;
  std::mutex open_mutex_;  ///< orders open() against close() and kill()
  std::unique_ptr<ChildProcess> child_;
  std::mutex write_mutex_;
  std::thread stdout_thread_;
  std::thread stderr_thread_;
  std::atomic<bool> closing_{false};
  // stderr rate limit (token bucket), touched only by the stderr thread
  double tokens_ = 0;
  std::chrono::steady_clock::time_point refilled_;
  std::size_t suppressed_ = 0;
};

}  // namespace gantry::mcp
