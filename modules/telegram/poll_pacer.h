#pragma once
/// PollPacer: the pause before the next getUpdates. Telegram holds an empty poll for its
/// whole timeout, so the loop never waits; a server that answers an empty poll at once (a
/// local Bot API server, a proxy, an emulator) would otherwise be polled thousands of times
/// a second. Pure and single-threaded (the receive loop's).

#include <chrono>
#include <cstddef>

namespace gantry::telegram {

class PollPacer final {
 public:
  /// poll_timeout: the timeout asked of getUpdates; a poll answered in under half of it
  /// without updates is "early". Early polls wait first, then double up to max_pause.
  PollPacer(std::chrono::milliseconds poll_timeout, std::chrono::milliseconds first_pause,
            std::chrono::milliseconds max_pause);

  /// The pause after a successful poll that took elapsed and returned updates updates:
  /// zero when it brought updates (no added latency) or was held as asked.
  std::chrono::milliseconds after(std::chrono::milliseconds elapsed, std::size_t updates);

 private:
  std::chrono::milliseconds early_below_;
  std::chrono::milliseconds first_pause_;
  std::chrono::milliseconds max_pause_;
  std::chrono::milliseconds next_pause_;
};

}  // namespace gantry::telegram
