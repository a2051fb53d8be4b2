#pragma once
/// TypingPulses: keeps the typing indicator alive in the chats whose turn is running. One
/// thread serves every chat of the service and sleeps without a timer while no turn runs, so
/// a turn starts no thread of its own.

#include <chrono>
#include <condition_variable>
#include <map>
#include <mutex>
#include <string>
#include <thread>

#include "gantry/channel.h"

namespace gantry::chat {

class TypingPulses {
 public:
  /// How often the indicator is sent again (platforms show it for about five seconds).
  static constexpr std::chrono::seconds kPeriod{4};

  /// channel is not owned and outlives this.
  explicit TypingPulses(Channel& channel);
  /// Ends the thread once a typing call under way has returned.
  ~TypingPulses();
  TypingPulses(const TypingPulses&) = delete;
  TypingPulses& operator=(const TypingPulses&) = delete;

  /// Sends the indicator to chat_id at once and every kPeriod until stop(chat_id), from the
  /// pulse thread, so a slow typing call never holds up the turn. Any thread.
  void start(const std::string& chat_id);
  /// Ends chat_id's pulse. Returns once no typing call for it is under way, so no indicator
  /// arrives after the reply that follows. Any thread.
  void stop(const std::string& chat_id);

 private:
  using Clock = std::chrono::steady_clock;
  void loop();

  Channel& channel_;
  std::mutex mutex_;
  std::condition_variable cv_;
  std::map<std::string, Clock::time_point> due_;  ///< chat → when its next indicator is due
  std::string in_flight_;                         ///< the chat being sent to, or empty
  bool done_ = false;
  std::thread thread_;  ///< last: it uses the members above
};

}  // namespace gantry::chat
