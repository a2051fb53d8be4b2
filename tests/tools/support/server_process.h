#pragma once
/// A bundled tool server (gantry-workspace, gantry-fetch) run as a child process, spoken to
/// in MCP over its stdin/stdout the way any client would: one JSON-RPC message per line.

#include <Poco/JSON/Object.h>

#include <chrono>
#include <string>
#include <vector>

namespace gantry::testing {

/// The outcome of tools/call: the text of its content and its isError flag.
struct CallResult {
  std::string text;
  bool is_error = false;
};

/// A running server; killed and reaped on destruction. Not thread-safe.
class ServerProcess final {
 public:
  /// Starts program with args, this process's environment plus env ("NAME=value" entries),
  /// and completes the initialize handshake.
  ServerProcess(const std::string& program, const std::vector<std::string>& args,
                const std::vector<std::string>& env = {});
  ~ServerProcess();
  ServerProcess(const ServerProcess&) = delete;
  ServerProcess& operator=(const ServerProcess&) = delete;

  /// Sends one request and returns its response line (empty on timeout or exit).
  std::string request(const std::string& method, const Poco::JSON::Object::Ptr& params,
                      std::chrono::milliseconds timeout = std::chrono::seconds(20));
  /// Calls a tool; arguments_json is the JSON object text of its arguments.
  CallResult call(const std::string& tool, const std::string& arguments_json);
  /// The names of the tools the server lists.
  std::vector<std::string> tools();
  /// Sends one line of raw text (a notification, malformed input) without waiting.
  bool send(const std::string& line);
  /// Sends one line of raw text and reads one line back.
  std::string raw(const std::string& line);

 private:
  std::string readLine(std::chrono::milliseconds timeout);

  int pid_ = -1;
  int in_ = -1;
  int out_ = -1;
  int next_id_ = 1;
  std::string buffer_;
};

/// The path of a built tool server binary.
std::string toolBinary(const std::string& name);

}  // namespace gantry::testing
