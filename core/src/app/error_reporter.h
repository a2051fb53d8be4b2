#pragma once
/// ErrorReporter: the owner reports a channel asks for (Channel::ownerReports, e.g.
/// TELEGRAM_ERROR_REPORTING) — log records at or above a level are also sent to the owner's
/// chat with their fields in the channel's quote block, rate-limited, never reporting its own
/// failures. A repeated record (same repeatKey) is reported once; its repeats are counted
/// and summarised at most once per kRepeatWindow.

#include <condition_variable>
#include <deque>
#include <functional>
#include <mutex>
#include <string>
#include <string_view>
#include <thread>

#include "app/repeat_filter.h"
#include "gantry/channel.h"
#include "gantry/host.h"

namespace gantry::app {

/// Renders one JSON log line as the report text: `⚠️ error: msg` then the fields, one
/// `key: value` a line, in the channel's quote block (Channel::quoteBlock). Pure but for
/// that call.
std::string renderReport(std::string_view json_line, const Channel& channel);

class ErrorReporter {
 public:
  using Clock = RepeatFilter::Clock;
  /// How often a repeating record's count is reported at most.
  static constexpr std::chrono::minutes kRepeatWindow{30};

  /// Starts the sender thread and taps the log. channel must outlive the reporter. clock
  /// times repeats (tests pass a fake one); it is called on the logging threads.
  ErrorReporter(Channel& channel, std::string owner_chat, LogLevel min_level,
                std::function<Clock::time_point()> clock = Clock::now);
  ~ErrorReporter();
  ErrorReporter(const ErrorReporter&) = delete;
  ErrorReporter& operator=(const ErrorReporter&) = delete;

 private:
  static void tap(void* self, LogLevel level, std::string_view line);
  struct Pending {
    std::string line;
    std::string note;  ///< appended in parentheses, e.g. a repeat count
  };

  void enqueue(std::string_view line);
  void queueSummaries();
  void loop();

  Channel& channel_;
  std::string owner_chat_;
  LogLevel min_level_;
  std::function<Clock::time_point()> clock_;
  std::mutex mutex_;
  std::condition_variable cv_;
  RepeatFilter repeats_{kRepeatWindow};
  std::deque<Pending> queue_;
  std::size_t dropped_ = 0;
  bool stop_ = false;
  std::thread thread_;
};

}  // namespace gantry::app
