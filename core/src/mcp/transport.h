#pragma once
/// Transport: moves JSON-RPC text between the protocol client and one MCP server (a stdio
/// child or a Streamable HTTP endpoint). The client owns the protocol; a transport only
/// frames and delivers.

#include <chrono>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "gantry/status.h"

namespace gantry::mcp {

/// Receives what a transport reads. Called on transport threads; implementations are
/// thread-safe and must not block on the transport.
class TransportHandler {
 public:
  virtual ~TransportHandler() = default;
  /// One JSON-RPC message (or batch) as text.
  virtual void onMessage(std::string_view text) = 0;
  /// A message larger than the line cap was dropped; `request_id` is the id found in it.
  virtual void onOversize(std::optional<std::int64_t> request_id, std::size_t length) = 0;
  /// A request could not be delivered or answered at the transport level (HTTP status,
  /// connection refused).
  virtual void onRequestFailed(std::int64_t request_id, const Status& status) = 0;
  /// The server is gone (child exited, stream closed). Called at most once.
  virtual void onClosed(const std::string& reason) = 0;
};

class Transport {
 public:
  virtual ~Transport() = default;
  /// Connects (spawns the child). The handler must outlive the transport.
  virtual Status open(TransportHandler* handler) = 0;
  /// Sends one message. `request_id` is set for requests (their answer may arrive on the
  /// send's own channel, as with HTTP); `timeout` bounds how long that channel is kept.
  virtual Status send(const std::string& text, std::optional<std::int64_t> request_id,
                      std::chrono::milliseconds timeout) = 0;
  /// Gives up waiting for the answer to request_id (HTTP aborts its POST). Optional.
  virtual void abandon(std::int64_t /*request_id*/) {}
  /// Called once initialize succeeded, before notifications/initialized is sent: the
  /// negotiated protocol version, and the exact initialize/initialized texts so a
  /// transport can re-initialise an expired session.
  virtual void initialized(const std::string& /*version*/, const std::string& /*init_request*/,
                           const std::string& /*init_notification*/) {}
  /// Called once the session is fully initialised (notifications/initialized was sent): HTTP
  /// opens its optional GET stream for server-initiated messages here. Optional.
  virtual void sessionReady() {}
  /// Closes the connection (stdio: ends the child; HTTP: DELETEs the session). Idempotent.
  virtual void close() = 0;
  /// Kills at once (a hung stdio child). Defaults to close().
  virtual void kill() { close(); }
  /// A short label for logs: "stdio" or "http".
  virtual const char* kind() const = 0;
};

}  // namespace gantry::mcp
