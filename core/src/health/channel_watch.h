#pragma once
/// The half-dead channel watchdog (DESIGN 9, `gantry status`): a channel can keep receiving
/// while every send fails, or keep sending while its receive loop fails or hangs. The
/// ChannelWatch collects both sides as they happen; the heartbeat writes them to its row, and
/// channelVerdict judges a row the same way for `gantry status` and for the log.

#include <cstdint>
#include <mutex>
#include <string>

#include "gantry/forwarding_channel.h"
#include "store/heartbeat_repo.h"

namespace gantry::health {

/// Both sides of the channel as last seen. Thread-safe: the channel's receive loop, the chat
/// workers and the heartbeat thread call it concurrently.
class ChannelWatch {
 public:
  void receiveOk(int64_t now_ms);
  /// A send, edit or photo ended with status: a success clears a failing send side; a failure
  /// a retry could help (5xx, network, rate limits past their waits) marks it failing from
  /// now unless it already was. Other failures (a refused message) say nothing of the channel.
  void sendOutcome(const Status& status, int64_t now_ms);

  struct Sides {
    int64_t last_receive_ok_at = 0;  ///< 0: never
    int64_t send_failing_since = 0;  ///< 0: sends work (or none failed)
    std::string send_error;          ///< the failure that began the failing run
  };
  Sides sides() const;

 private:
  mutable std::mutex mutex_;
  Sides sides_;
};

/// What is wrong with a heartbeat row's channel at now_ms: a side counts as failing once it
/// has been so for more than 3 heartbeat periods.
struct ChannelVerdict {
  bool receive_failing = false;  ///< no good receive for 3 periods since boot
  bool send_failing = false;     ///< sends failing, none succeeding, for 3 periods
};
ChannelVerdict channelVerdict(const store::Heartbeat& heartbeat, int64_t now_ms);

/// Logs a side that turned failing (warn, saying for how long and why) or recovered (info);
/// nothing when nothing changed.
void logVerdictChange(const ChannelVerdict& before, const ChannelVerdict& now,
                      const store::Heartbeat& heartbeat, int64_t now_ms);

/// The channel as the chat code sees it, every outbound outcome reported to a ChannelWatch.
class WatchedChannel final : public ForwardingChannel {
 public:
  /// inner and watch are not owned and outlive this.
  WatchedChannel(Channel& inner, ChannelWatch& watch) : ForwardingChannel(inner), watch_(watch) {}

  Result<std::string> send(const std::string& chat_id, std::string_view text) noexcept override;
  Status edit(const std::string& chat_id, const std::string& message_id,
              std::string_view text) noexcept override;
  Result<std::string> sendPhoto(const std::string& chat_id, const Image& image,
                                std::string_view caption) noexcept override;

 private:
  ChannelWatch& watch_;
};

}  // namespace gantry::health
