#pragma once
/// FakeHost: a gantry::Host for module unit tests. Config comes from a map, state lives in
/// memory, log lines are kept for assertions.

#include <atomic>
#include <map>
#include <mutex>
#include <string>
#include <vector>

#include "gantry/host.h"

namespace gantry::testing {

class FakeHost final : public Host {
 public:
  std::map<std::string, std::string, std::less<>> env;
  std::map<std::string, std::string, std::less<>> state;
  std::atomic<bool> stop{false};

  struct Line {
    LogLevel level;
    std::string msg;
    LogFields fields;
  };

  void log(LogLevel level, std::string_view msg, const LogFields& fields) noexcept override {
    std::lock_guard lock(mutex_);
    lines_.push_back({level, std::string(msg), fields});
  }
  std::optional<std::string> config(std::string_view key) const noexcept override {
    auto it = env.find(key);
    if (it == env.end()) return std::nullopt;
    return it->second;
  }
  std::optional<std::string> stateGet(std::string_view key) noexcept override {
    std::lock_guard lock(mutex_);
    auto it = state.find(key);
    if (it == state.end()) return std::nullopt;
    return it->second;
  }
  Status stateSet(std::string_view key, std::string_view value) noexcept override {
    std::lock_guard lock(mutex_);
    state[std::string(key)] = std::string(value);
    return Status::ok();
  }
  bool stopping() const noexcept override { return stop; }

  /// True when some log line's msg contains text.
  bool logged(std::string_view text) const {
    std::lock_guard lock(mutex_);
    for (const auto& line : lines_) {
      if (line.msg.find(text) != std::string::npos) return true;
    }
    return false;
  }
  std::vector<Line> lines() const {
    std::lock_guard lock(mutex_);
    return lines_;
  }

 private:
  mutable std::mutex mutex_;
  std::vector<Line> lines_;
};

}  // namespace gantry::testing
