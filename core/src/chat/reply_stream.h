#pragma once
/// ReplyStream: renders one running turn on a channel (DESIGN 4.3) — tokens streamed to a
/// terminal or into one message edited in place (throttled), tool-trace lines, and the
/// transient spin-up notice that the reply replaces.

#include <chrono>
#include <condition_variable>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "agent/turn_observer.h"
#include "config/config.h"
#include "gantry/channel.h"

namespace gantry::chat {

struct StreamOptions {
  bool stream = false;
  config::TraceMode trace = config::TraceMode::kCompact;
  int spinup_ms = 4000;         ///< 0 = off
  bool spinup_at_once = false;  ///< first turn after start
  std::chrono::milliseconds edit_interval{1200};
};

/// One per turn. Callbacks may come from the turn thread and tool threads.
class ReplyStream final : public agent::TurnObserver {
 public:
  ReplyStream(Channel& channel, std::string chat_id, StreamOptions options);
  ~ReplyStream() override;
  ReplyStream(const ReplyStream&) = delete;
  ReplyStream& operator=(const ReplyStream&) = delete;

  void onText(std::string_view delta) override;
  void onReasoning(std::string_view delta) override;
  void onTextDiscarded() override;
  void onToolStart(const std::string& name) override;
  void onToolEnd(const std::string& name, bool ok, int64_t ms, std::size_t chars) override;
  /// Sent as a message of its own (a terminal's open trace line is ended first).
  void onNotice(const std::string& text) override;

  /// Delivers the final reply: replaces the streamed part of the bubble (or sends it),
  /// splitting at the channel's limit. The tool trace stays above the reply; the spin-up
  /// line does not. Returns false when nothing could be delivered.
  bool finish(const std::string& reply);
  /// Ends the turn without a reply (cancelled, failed): the note replaces the streamed
  /// text and the spin-up line; the trace stays.
  void abandon(const std::string& note);

 private:
  std::string traceLocked() const;
  std::string tracePrefixLocked() const;
  std::string bubbleLocked() const;
  void rawTraceLocked(const std::string& line);
  void closeRawTraceLocked();
  void renderLocked(bool force);
  void spinupLoop();
  void stopSpinup();
  bool editable() const { return options_.stream && caps_.can_edit; }
  bool raw() const { return options_.stream && caps_.raw_stream; }

  Channel& channel_;
  std::string chat_id_;
  StreamOptions options_;
  ChannelCaps caps_;
  std::mutex mutex_;
  std::condition_variable cv_;
  std::string text_;                ///< visible reply in the current bubble
  std::size_t committed_ = 0;       ///< reply bytes frozen in earlier bubbles
  std::vector<std::string> trace_;  ///< trace lines of finished or running calls
  std::string message_id_;          ///< the bubble being edited
  std::string shown_;               ///< what the bubble shows now
  std::string spinup_text_;
  std::chrono::steady_clock::time_point last_edit_{};
  bool raw_started_ = false;    ///< reply text was streamed to the terminal
  bool raw_mid_line_ = false;   ///< the terminal's last streamed text did not end a line
  bool raw_line_open_ = false;  ///< a compact trace line is being written
  bool done_ = false;
  bool activity_ = false;
  std::thread spinup_;
};

/// The compact trace line: `Making calls: ✓ ✓ ✗`.
std::string compactTrace(const std::vector<bool>& results, std::size_t running);
/// A human duration and size: `1.2s · 4.1k chars`.
std::string traceStats(int64_t ms, std::size_t chars);

}  // namespace gantry::chat
