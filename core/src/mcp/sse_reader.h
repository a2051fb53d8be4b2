#pragma once
/// Server-Sent Events framing for MCP's Streamable HTTP transport. Pure: no I/O, no threads.

#include <chrono>
#include <optional>
#include <string>
#include <string_view>

#include "mcp/jsonrpc.h"

namespace gantry::mcp {

/// Reads a text/event-stream body incrementally (the event-stream rules of the HTML
/// standard): dispatches each event's data (its data: lines joined by '\n'), and keeps the
/// last event id and the server's retry delay so a closed stream can be resumed. Events
/// with empty data (an SSE priming event) are not dispatched. An event whose data exceeds
/// `cap` is not kept: its head and tail go to on_oversize, so memory stays bounded by the
/// cap. Accepts LF, CRLF and CR line ends and any chunking.
class SseReader {
 public:
  using OnEvent = std::function<void(std::string_view data)>;
  using OnOversize = jsonrpc::LineSplitter::OnOversize;

  SseReader(std::size_t cap, OnEvent on_event, OnOversize on_oversize);
  void feed(std::string_view bytes);
  /// Ends the stream: dispatches a final event not followed by a blank line.
  void finish();
  /// The id of the last event that carried one; empty when none did.
  const std::string& lastEventId() const { return last_id_; }
  /// The reconnection delay the server last asked for (retry: field), if any.
  std::optional<std::chrono::milliseconds> retry() const { return retry_; }

 private:
  void appendLine(std::string_view piece);
  void endLine();
  void field(std::string_view name, std::string_view value);
  void appendData(std::string_view value);
  void dispatch();

  std::size_t cap_;
  OnEvent on_event_;
  OnOversize on_oversize_;
  std::string line_;
  std::size_t line_dropped_ = 0;  ///< bytes of the current line beyond the cap
  std::string line_tail_;
  bool after_cr_ = false;
  std::string data_;
  bool data_started_ = false;
  bool oversize_ = false;  ///< the current event's data is over the cap
  std::size_t oversize_length_ = 0;
  std::string oversize_head_;
  std::string oversize_tail_;
  std::string last_id_;
  std::optional<std::chrono::milliseconds> retry_;
};

}  // namespace gantry::mcp
