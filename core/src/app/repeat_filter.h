#pragma once
/// RepeatFilter: keeps one broken thing from flooding the owner's chat. The first record of
/// a key is reported; repeats within the window are only counted, and their count goes out
/// once the window has passed (with the next record of that key, or as a summary on its
/// own). Pure: the caller passes the time, so tests need no clock. Not thread-safe.

#include <chrono>
#include <cstddef>
#include <map>
#include <string>
#include <string_view>
#include <vector>

namespace gantry::app {

/// The key of a JSON log line: its level, msg and the server/module/tool it names, so the
/// same failure with a changing detail (attempt, delay, timestamp) is one key. Pure.
std::string repeatKey(std::string_view json_line);

class RepeatFilter final {
 public:
  using Clock = std::chrono::steady_clock;

  /// A summary of repeats that were not reported.
  struct Summary {
    std::string last_line;  ///< the latest repeated record
    std::size_t repeats = 0;
  };

  explicit RepeatFilter(Clock::duration window) : window_(window) {}

  /// true when line should be reported now; *repeats_before is then the number of repeats
  /// counted since the key's last report. false counts line as a repeat.
  bool admit(const std::string& key, std::string_view line, Clock::time_point now,
             std::size_t* repeats_before);
  /// Summaries of keys whose window passed with repeats counted; each is reset, so a key
  /// is summarised at most once per window.
  std::vector<Summary> due(Clock::time_point now);

 private:
  struct Entry {
    Clock::time_point reported_at;
    std::size_t repeats = 0;
    std::string last_line;
  };

  Clock::duration window_;
  std::map<std::string, Entry> entries_;
};

}  // namespace gantry::app
