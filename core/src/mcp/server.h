#pragma once
/// McpServer: one manifest server as a ToolSource, with its supervisor thread — start,
/// publish tools, watch health, restart with capped exponential backoff.

#include <condition_variable>
#include <map>
#include <memory>
#include <mutex>
#include <thread>

#include "mcp/client.h"
#include "mcp/manifest.h"
#include "mcp/options.h"
#include "tools/tool_source.h"

namespace gantry::mcp {

enum class ServerState { kStarting, kUp, kDown, kStopped };
const char* stateName(ServerState state);

/// A snapshot for the boot log and `gantry tools`.
struct ServerStatus {
  std::string name;
  std::string transport;  ///< "stdio" or "http"
  ServerState state = ServerState::kStarting;
  std::size_t tools_listed = 0;
  std::size_t tools_published = 0;
  std::size_t est_tokens = 0;  ///< estimate (chars/4) of the published schemas
  int restarts = 0;
  std::string last_error;
  std::string protocol_version;
  /// While not up: since when (ms since the epoch) — the moment it went down, or its start
  /// when it has not been up yet. 0 while up.
  int64_t down_since_ms = 0;
  bool was_up = false;  ///< it has been up at least once in this process
};

/// Thread-safe. tools() is empty while the server is down; calls then fail with a clear
/// message, and a call in flight when the server dies fails with one.
class McpServer final : public tools::ToolSource {
 public:
  McpServer(ServerSpec spec, McpOptions options);
  ~McpServer() override;
  McpServer(const McpServer&) = delete;
  McpServer& operator=(const McpServer&) = delete;

  /// Starts the supervisor thread (returns at once).
  void start();
  /// Stops the supervisor and closes the connection. Idempotent.
  void stop();
  /// Waits until the first connection attempt finished (up or failed) or the deadline.
  bool waitFirstAttempt(std::chrono::steady_clock::time_point deadline) const;

  ToolList tools() const override;
  tools::ToolResult call(const std::string& name, const std::string& arguments_json,
                         const tools::CallContext& context) override;
  bool serialized() const override { return spec_.isStdio(); }
  std::string server() const override { return spec_.name; }
  std::string namePrefix() const override { return spec_.prefix(); }
  /// "server NAME is down since T (D ago); …", or "server NAME is not up yet (starting since
  /// T, D ago); …" while its first start has not failed yet; "" while up.
  std::string outage() const override;
  /// The manifest's description, else the first published tool's, cut to one short line.
  std::string summary() const override;
  /// The manifest's policy for the tool (tool_policy first, then policy); kAllow for a name
  /// the server does not publish right now (such a call fails on its own).
  tools::Policy policy(const std::string& name) const override;
  /// The published schema and this server's manifest entry.
  std::string fingerprint(const std::string& name) const override;

  /// Calls one of the server's tools by its own (unprefixed) name, published or not.
  tools::ToolResult callRemote(const std::string& tool, const std::string& arguments_json,
                               const tools::CallContext& context);
  /// True when the server currently lists a tool of that (unprefixed) name.
  bool hasRemoteTool(const std::string& tool) const;
  /// The server's own name of a published tool, or empty.
  std::string remoteName(const std::string& published) const;

  const ServerSpec& spec() const { return spec_; }
  ServerStatus status() const;

 private:
  void supervise();
  Status connect();
  void watchUntilDown();
  Status refreshTools();
  void publish(std::vector<RemoteTool> remote);
  void markDown(const std::string& error);
  void leaveUpLocked();
  void dropClient(bool kill);
  std::unique_ptr<Transport> makeTransport() const;
  bool sleepFor(std::chrono::milliseconds delay);
  bool stopping() const;
  void logFailure(const std::string& error, std::chrono::milliseconds retry_in,
                  std::string* last_failure);
  void markAttempted();

  const ServerSpec spec_;
  const McpOptions options_;
  mutable std::mutex mutex_;
  mutable std::condition_variable wake_;
  std::shared_ptr<Client> client_;
  ToolList published_ = makeToolList();
  std::map<std::string, std::string> remote_by_published_;
  std::vector<std::string> remote_names_;
  ServerStatus status_;
  bool stopping_ = false;
  bool attempted_ = false;
  bool closed_ = false;
  bool refresh_ = false;
  std::thread thread_;
};

}  // namespace gantry::mcp
