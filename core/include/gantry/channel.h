#pragma once
/// Channel: the one chat surface of a process. Outbound-only, allowlist-only.

#include <cstddef>
#include <string>
#include <string_view>

#include "gantry/message.h"
#include "gantry/status.h"

namespace gantry {

enum class Markup { kPlain, kTelegramHtml, kDiscordMarkdown, kSlackMrkdwn };

/// What a channel can do; the core's chat experience adapts to it.
struct ChannelCaps {
  std::size_t max_message_chars = 4096;  ///< replies are split at this length
  bool can_edit = false;                 ///< edit-in-place streaming possible
  bool raw_stream = false;               ///< streamText() writes deltas as they come (stdio)
  bool ordered_input = false;            ///< turns strictly in order, no coalescing (pipes)
  bool renders_events = false;           ///< errors go to event(), not send() as text (stdio jsonl)
  Markup markup = Markup::kPlain;
};

/// A turn event some channels render (stdio jsonl prints them; chat channels ignore them).
struct TurnEvent {
  enum class Kind { kTool, kError } kind = Kind::kTool;
  std::string name;     ///< tool name
  bool ok = true;       ///< tool succeeded
  int64_t ms = 0;       ///< tool duration
  std::string message;  ///< error text
};

/// Receives what the channel's receive loop hands over. Implemented by the core;
/// called on the channel's receive thread; must not block for long.
class InboundSink {
 public:
  virtual ~InboundSink() = default;
  /// A message from an allowlisted sender (the channel has already dropped strangers).
  virtual void onMessage(InboundMessage message) noexcept = 0;
  /// The channel received successfully from its platform (a poll answered, a heartbeat
  /// acknowledged, the terminal readable). Cheap; call it as often as convenient. It feeds
  /// `gantry status`.
  virtual void onReceiveOk() noexcept {}
};

/// Implemented by channel modules. run() blocks on the calling thread; the other
/// methods may be called from any thread while run() is active.
class Channel {
 public:
  virtual ~Channel() = default;
  virtual ChannelCaps caps() const noexcept = 0;

  /// Receive loop: returns ok at end of input (pipe EOF) or after stop(); an error when
  /// the channel cannot continue (bad token, another poller).
  virtual Status run(InboundSink& sink) noexcept = 0;
  /// Asks run() to return soon. Thread-safe, idempotent.
  virtual void stop() noexcept = 0;

  /// Sends text (already within max_message_chars, in the channel's markup); returns the
  /// platform's message id ("" when the platform has none).
  virtual Result<std::string> send(const std::string& chat_id, std::string_view text) noexcept = 0;
  /// Replaces the text of a sent message (only when caps().can_edit).
  virtual Status edit(const std::string& chat_id, const std::string& message_id,
                      std::string_view text) noexcept = 0;
  /// Shows a typing indicator (a no-op where the platform has none).
  virtual Status typing(const std::string& chat_id) noexcept = 0;
  /// Sends an image (URL or data) with a caption.
  virtual Result<std::string> sendPhoto(const std::string& chat_id, const Image& image,
                                        std::string_view caption) noexcept = 0;
  /// Writes a streamed delta directly (only when caps().raw_stream); final ends the reply.
  virtual Status streamText(const std::string& chat_id, std::string_view delta,
                            bool final) noexcept = 0;
  /// Reports a turn event; channels that do not render events ignore it.
  virtual void event(const std::string& chat_id, const TurnEvent& event) noexcept = 0;
};

}  // namespace gantry
