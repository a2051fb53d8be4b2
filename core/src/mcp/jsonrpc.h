#pragma once
/// JSON-RPC 2.0 framing for MCP: building and parsing single messages, and splitting a byte
/// stream into capped lines. Pure: no I/O, no threads.

#include <Poco/Dynamic/Var.h>
#include <Poco/JSON/Object.h>

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "gantry/status.h"

namespace gantry::mcp::jsonrpc {

/// The MCP protocol revisions gantry speaks, as client and as server, newest first; the
/// first is what a client asks for and what a server answers an unknown request with.
inline constexpr const char* kProtocolVersions[] = {"2025-11-25", "2025-06-18", "2025-03-26"};

/// One decoded JSON-RPC message.
struct Message {
  enum class Kind { kRequest, kNotification, kResult, kError };
  Kind kind = Kind::kNotification;
  Poco::Dynamic::Var id;           ///< requests and responses (number or string)
  std::string method;              ///< requests and notifications
  Poco::JSON::Object::Ptr params;  ///< may be null
  Poco::JSON::Object::Ptr result;  ///< kResult; may be null when the result is not an object
  int error_code = 0;              ///< kError
  std::string error_message;       ///< kError

  /// The id as our integer request id, or nullopt when it is not one of ours.
  std::optional<std::int64_t> intId() const;
};

/// Serialises a request/notification/response as one line of JSON (no newline; JSON
/// escapes keep embedded newlines out). A null params is omitted.
std::string request(std::int64_t id, const std::string& method,
                    const Poco::JSON::Object::Ptr& params);
std::string notification(const std::string& method, const Poco::JSON::Object::Ptr& params);
std::string response(const Poco::Dynamic::Var& id, const Poco::JSON::Object::Ptr& result);
std::string errorResponse(const Poco::Dynamic::Var& id, int code, const std::string& message);

/// Parses one JSON-RPC message (or a batch array of them). Fails on text that is not JSON
/// or not a JSON-RPC 2.0 message.
Result<std::vector<Message>> parse(std::string_view text);

/// Serialises any JSON value compactly with sorted object keys (stable across calls).
std::string stringify(const Poco::Dynamic::Var& value);

/// Splits a byte stream into newline-terminated lines of at most `cap` bytes. A longer line
/// is not kept: its first and last bytes are reported through on_oversize so the caller can
/// fail the call it answers, and memory stays bounded by the cap.
class LineSplitter {
 public:
  using OnLine = std::function<void(std::string_view line)>;
  using OnOversize =
      std::function<void(std::string_view head, std::string_view tail, std::size_t length)>;

  LineSplitter(std::size_t cap, OnLine on_line, OnOversize on_oversize);
  /// Feeds bytes; calls back for every complete line.
  void feed(std::string_view bytes);

 private:
  void append(std::string_view piece);
  void endLine();

  std::size_t cap_;
  OnLine on_line_;
  OnOversize on_oversize_;
  std::string line_;
  std::string tail_;
  std::size_t dropped_ = 0;  ///< bytes of the current line beyond the cap
};

/// The id of a JSON-RPC response (an object with a top-level integer "id" and a "result" or
/// "error" member), found by one scan of its top level without building a document.
/// Nullopt for requests, notifications, batches and text that is not such an object.
std::optional<std::int64_t> responseId(std::string_view text);

/// Finds the top-level `"id":N` of a JSON-RPC response in a fragment of its text (used for
/// a response too large to parse). Returns nullopt when no unescaped id key is present.
std::optional<std::int64_t> findResponseId(std::string_view fragment);

}  // namespace gantry::mcp::jsonrpc
