#pragma once
/// TurnObserver: what a running turn reports as it goes, so the chat layer can stream text,
/// draw tool traces and show a spin-up notice. Called on the turn's thread (tool events
/// may come from tool threads); implementations must be quick and thread-safe.

#include <cstdint>
#include <string>
#include <string_view>

namespace gantry::agent {

class TurnObserver {
 public:
  virtual ~TurnObserver() = default;
  /// A model call starts (round = 0 for the first call of the turn).
  virtual void onModelCall(int round) { (void)round; }
  /// Visible reply text as it streams (never think blocks or printed tool calls).
  virtual void onText(std::string_view delta) { (void)delta; }
  /// Reasoning as it streams; shown only as activity, never as the reply.
  virtual void onReasoning(std::string_view delta) { (void)delta; }
  /// Text streamed so far in this model call is void (the call became a tool round).
  virtual void onTextDiscarded() {}
  virtual void onToolStart(const std::string& name) { (void)name; }
  /// A message for the chat apart from the reply (an approval request); may come from a
  /// tool thread.
  virtual void onNotice(const std::string& text) { (void)text; }
  virtual void onToolEnd(const std::string& name, bool ok, int64_t ms, std::size_t chars) {
    (void)name, (void)ok, (void)ms, (void)chars;
  }
};

}  // namespace gantry::agent
