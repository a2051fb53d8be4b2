#pragma once
/// Channel: the one chat surface of a process. Outbound-only, allowlist-only.

#include <cstddef>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "gantry/host.h"
#include "gantry/message.h"
#include "gantry/status.h"

namespace gantry {

/// What a channel can do; the core's chat experience adapts to it.
struct ChannelCaps {
  std::size_t max_message_chars = 4096;  ///< the platform's limit: streamed edits stay below it
  bool can_edit = false;                 ///< edit-in-place streaming possible
  bool raw_stream = false;               ///< streamText() writes deltas as they come (stdio)
  bool ordered_input = false;            ///< turns strictly in order, no coalescing (pipes)
  bool renders_events = false;           ///< errors go to event(), not send() as text (stdio jsonl)
  /// Messages received but not answered before a restart are answered after it (chat
  /// platforms, whose messages are still there): unrecorded messages are replayed, turns a
  /// crash cut short are continued once and undelivered replies are sent. False where input
  /// does not come back after a restart (a terminal, a pipe): all of that is closed unsent,
  /// because the reader it was meant for has gone.
  bool replays_inbox = true;
  /// typing() shows an indicator, which the host keeps alive while a turn runs. False where
  /// there is none (a terminal, a pipe): typing() is never called and no thread waits to.
  bool shows_typing = true;
};

/// Where the host copies its own log records for the owner, when the operator asked the
/// channel for that in the channel's configuration (e.g. TELEGRAM_ERROR_REPORTING).
struct OwnerReports {
  std::string chat_id;                    ///< the owner's chat; empty: no reports
  LogLevel min_level = LogLevel::kError;  ///< records at or above it are copied
};

/// A turn event some channels render (stdio jsonl prints them; chat channels ignore them).
struct TurnEvent {
  enum class Kind { kTool, kError } kind = Kind::kTool;
  std::string name;     ///< tool name
  bool ok = true;       ///< tool succeeded
  int64_t ms = 0;       ///< tool duration
  std::string message;  ///< error text
};

/// A chat command the host answers, for platforms that show a command menu.
struct ChatCommand {
  std::string name;         ///< without the slash: lowercase letters, digits, underscores
  std::string description;  ///< one line, saying what an argument is
};

/// Receives what the channel's receive loop hands over. Implemented by the core;
/// called on the channel's receive thread; must not block for long.
class InboundSink {
 public:
  virtual ~InboundSink() = default;
  /// A message from an allowlisted sender (the channel has already dropped strangers).
  virtual void onMessage(InboundMessage message) noexcept = 0;
  /// Messages the channel received together, in order (one poll's batch, such as the backlog
  /// waiting at start): where the host joins bubbles, they become one turn, and no turn is
  /// started for the first alone. The default hands each to onMessage().
  virtual void onMessages(std::vector<InboundMessage> messages) noexcept {
    for (auto& message : messages) onMessage(std::move(message));
  }
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
  /// The host's chat commands, handed over once before run(). A platform with a command
  /// menu registers them (Telegram's setMyCommands); the others have nothing to do.
  virtual void offerCommands(const std::vector<ChatCommand>& /*commands*/) noexcept {}
  /// Asks run() to return soon. Thread-safe, idempotent.
  virtual void stop() noexcept = 0;

  /// Sends a reply written in markdown (as the model writes it, any length). The channel
  /// renders it in its platform's markup and splits what exceeds the platform's limit into
  /// several messages; returns the id of the last message sent ("" when the platform has
  /// none). An error when nothing or only part could be sent.
  virtual Result<std::string> send(const std::string& chat_id, std::string_view text) noexcept = 0;
  /// Replaces the text of a sent message (only when caps().can_edit).
  virtual Status edit(const std::string& chat_id, const std::string& message_id,
                      std::string_view text) noexcept = 0;
  /// Shows a typing indicator (a no-op where the platform has none).
  virtual Status typing(const std::string& chat_id) noexcept = 0;
  /// Sends an image (URL or data) with a caption.
  virtual Result<std::string> sendPhoto(const std::string& chat_id, const Image& image,
                                        std::string_view caption) noexcept = 0;
  /// Writes a streamed delta directly (called only when caps().raw_stream); final ends the
  /// reply. Channels without raw streaming keep the default, which refuses.
  virtual Status streamText(const std::string& /*chat_id*/, std::string_view /*delta*/,
                            bool /*final*/) noexcept {
    return Status::error("streamText is not supported by this channel (caps().raw_stream)");
  }
  /// Reports a turn event (called only when caps().renders_events); the default ignores it.
  virtual void event(const std::string& /*chat_id*/, const TurnEvent& /*event*/) noexcept {}

  /// Where the owner's copies of log records go; the default asks for none. Called once at
  /// boot, before run().
  virtual OwnerReports ownerReports() const noexcept { return {}; }
  /// The chat that is the owner's when the channel knows it without configuration (stdio:
  /// the terminal): where `POST /notify` and task replies go unless API_OWNER_CHAT names one.
  /// The default is the chat of ownerReports(); "" when none is known. Called once at boot.
  virtual std::string ownerChat() const noexcept { return ownerReports().chat_id; }
  /// Shows a transient status line (the spin-up notice) that the next output of the chat
  /// replaces; "" removes it. Where the platform cannot (a pipe, a chat platform, which
  /// edits its messages instead) the default ignores it. Any thread.
  virtual void status(const std::string& /*chat_id*/, std::string_view /*text*/) noexcept {}
  /// Renders detail lines ('\n'-separated, plain text) as one quoted block in the markdown
  /// that send() takes, collapsed where the platform can fold a quote; appended by the host
  /// under a headline (owner reports). The default is a markdown quote, "> " per line.
  virtual std::string quoteBlock(std::string_view lines) const noexcept {
    try {
      std::string out = "> ";
      for (char c : lines) out += c == '\n' ? std::string("\n> ") : std::string(1, c);
      return out;
    } catch (...) {  // out of memory: an empty block rather than an exception
      return {};
    }
  }
};

}  // namespace gantry
