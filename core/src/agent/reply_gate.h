#pragma once
/// ReplyGate: holds streamed text back while it might still be a tool call printed as
/// text (a JSON object, a ``` fence or a <tool_call> tag), so raw JSON never reaches the
/// user. Ordinary prose passes through as it arrives. Pure; not thread-safe.

#include <functional>
#include <string>
#include <string_view>

namespace gantry::agent {

class ReplyGate {
 public:
  explicit ReplyGate(std::function<void(std::string_view)> emit) : emit_(std::move(emit)) {}

  /// Feeds a streamed delta.
  void push(std::string_view delta);
  /// True when text is being held back (it may be a printed call).
  bool holding() const { return holding_; }
  /// Releases held text (the reply turned out not to be a call).
  void release();
  /// Forgets held text (the reply was a call and will run as one).
  void discard() { held_.clear(); }
  /// True when anything was emitted.
  bool emitted() const { return emitted_; }

 private:
  std::function<void(std::string_view)> emit_;
  std::string held_;
  bool decided_ = false;
  bool holding_ = false;
  bool emitted_ = false;
};

}  // namespace gantry::agent
