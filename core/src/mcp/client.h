#pragma once
/// Client: the protocol state of one connection to an MCP server — the initialize
/// handshake, request/response matching, tools/list pagination, tools/call with timeout
/// and cancellation, ping, and the notifications a server sends us.

#include <Poco/JSON/Object.h>

#include <atomic>
#include <condition_variable>
#include <functional>
#include <map>
#include <memory>
#include <mutex>

#include "mcp/transport.h"
#include "tools/tool_source.h"

namespace gantry::mcp {

/// A tool as the server lists it.
struct RemoteTool {
  std::string name;
  std::string description;
  std::string input_schema_json;  ///< serialized with sorted keys (stable)
};

/// Thread-safe. Owns its transport.
class Client final : private TransportHandler {
 public:
  struct Callbacks {
    std::function<void()> tools_changed;             ///< notifications/tools/list_changed
    std::function<void(const std::string&)> closed;  ///< the transport closed
  };

  Client(std::string server, std::unique_ptr<Transport> transport, Callbacks callbacks);
  ~Client() override;
  Client(const Client&) = delete;
  Client& operator=(const Client&) = delete;

  /// Opens the transport and runs initialize → notifications/initialized. Fails when the
  /// server does not answer within timeout or offers no protocol revision we speak.
  Status start(std::chrono::milliseconds timeout);
  /// Every tool, following nextCursor until the last page.
  Result<std::vector<RemoteTool>> listTools(std::chrono::milliseconds timeout);
  /// tools/call. Timeout and cancellation send notifications/cancelled and return ok=false.
  tools::ToolResult callTool(const std::string& tool, const std::string& arguments_json,
                             const tools::CallContext& context);
  /// ping; fails when there is no answer within timeout.
  Status ping(std::chrono::milliseconds timeout);
  /// Ends the connection; pending requests fail. Idempotent.
  void close();
  /// Kills a hung server at once; pending requests fail.
  void kill();

  bool closed() const { return closed_; }
  /// True while a request is waiting for its answer.
  bool busy() const;
  std::string protocolVersion() const;
  std::string serverName() const;  ///< serverInfo.name from initialize
  bool toolsListChanged() const { return tools_list_changed_; }
  const char* kind() const { return transport_->kind(); }

 private:
  struct Pending;
  struct Outcome {
    Status status;
    Poco::JSON::Object::Ptr result;
    bool timed_out = false;  ///< no answer within the request's timeout
  };

  Outcome request(const std::string& method, const Poco::JSON::Object::Ptr& params,
                  std::chrono::milliseconds timeout, const CancelToken* cancel);
  Outcome await(std::int64_t id, const std::shared_ptr<Pending>& pending,
                std::chrono::milliseconds timeout, const CancelToken* cancel);
  void notifyCancelled(std::int64_t id, const std::string& reason);
  void finish(std::int64_t id, Outcome outcome);
  void failAll(const std::string& reason);
  Status checkInitialize(const Poco::JSON::Object::Ptr& result);

  void onMessage(std::string_view text) override;
  void onOversize(std::optional<std::int64_t> request_id, std::size_t length) override;
  void onRequestFailed(std::int64_t request_id, const Status& status) override;
  void onClosed(const std::string& reason) override;
  void failMalformedAnswer(std::string_view text, const std::string& error);
  void handleServerRequest(const Poco::Dynamic::Var& id, const std::string& method);
  void handleNotification(const std::string& method);

  std::string server_;
  std::unique_ptr<Transport> transport_;
  Callbacks callbacks_;
  mutable std::mutex mutex_;
  std::condition_variable answered_;
  std::map<std::int64_t, std::shared_ptr<Pending>> pending_;
  std::atomic<std::int64_t> next_id_{1};
  std::atomic<bool> closed_{false};
  std::atomic<bool> tools_list_changed_{false};
  std::string close_reason_;
  std::string protocol_version_;
  std::string server_info_name_;
};

}  // namespace gantry::mcp
