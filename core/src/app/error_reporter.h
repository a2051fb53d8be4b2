#pragma once
/// ErrorReporter: TELEGRAM_ERROR_REPORTING — log records at or above a level are also sent
/// to the owner's chat as an expandable quote, rate-limited, never reporting its own
/// failures.

#include <condition_variable>
#include <deque>
#include <mutex>
#include <string>
#include <string_view>
#include <thread>

#include "gantry/channel.h"
#include "gantry/host.h"

namespace gantry::app {

/// Renders one JSON log line as the report text: `⚠️ error: msg` then the fields in an
/// expandable quote (`**>` … `||`, which the Telegram module renders). Pure.
std::string renderReport(std::string_view json_line);

class ErrorReporter {
 public:
  /// Starts the sender thread and taps the log. channel must outlive the reporter.
  ErrorReporter(Channel& channel, std::string owner_chat, LogLevel min_level);
  ~ErrorReporter();
  ErrorReporter(const ErrorReporter&) = delete;
  ErrorReporter& operator=(const ErrorReporter&) = delete;

 private:
  static void tap(void* self, LogLevel level, std::string_view line);
  void enqueue(std::string_view line);
  void loop();

  Channel& channel_;
  std::string owner_chat_;
  LogLevel min_level_;
  std::mutex mutex_;
  std::condition_variable cv_;
  std::deque<std::string> queue_;
  std::size_t dropped_ = 0;
  bool stop_ = false;
  std::thread thread_;
};

}  // namespace gantry::app
