#include "app/error_reporter.h"

#include <catch2/catch.hpp>
#include <chrono>
#include <condition_variable>
#include <mutex>
#include <string>
#include <vector>

#include "log/log.h"

namespace {

// Records what the reporter sends; everything else is a no-op.
class RecordingChannel final : public gantry::Channel {
 public:
  gantry::ChannelCaps caps() const noexcept override { return {}; }
  gantry::Status run(gantry::InboundSink&) noexcept override { return gantry::Status::ok(); }
  void stop() noexcept override {}
  gantry::Result<std::string> send(const std::string&, std::string_view text) noexcept override {
    std::lock_guard lock(mutex_);
    sent_.emplace_back(text);
    changed_.notify_all();
    return std::string("1");
  }
  gantry::Status edit(const std::string&, const std::string&, std::string_view) noexcept override {
    return gantry::Status::ok();
  }
  gantry::Status typing(const std::string&) noexcept override { return gantry::Status::ok(); }
  gantry::Result<std::string> sendPhoto(const std::string&, const gantry::Image&,
                                        std::string_view) noexcept override {
    return std::string("1");
  }
  gantry::Status streamText(const std::string&, std::string_view, bool) noexcept override {
    return gantry::Status::ok();
  }
  void event(const std::string&, const gantry::TurnEvent&) noexcept override {}

  /// Waits (up to 10 s) until n messages were sent; returns all sent so far.
  std::vector<std::string> waitSent(std::size_t n) {
    std::unique_lock lock(mutex_);
    changed_.wait_for(lock, std::chrono::seconds(10), [&] { return sent_.size() >= n; });
    return sent_;
  }

 private:
  std::mutex mutex_;
  std::condition_variable changed_;
  std::vector<std::string> sent_;
};

}  // namespace

TEST_CASE("a log record renders as a headline and the channel's quote block of its fields",
          "[app]") {
  RecordingChannel channel;  // the boundary's default quote block: "> " per line
  auto text = gantry::app::renderReport(
      R"({"ts":"2026-11-30T23:00:00.000Z","level":"error","msg":"turn_failed","error":"model: HTTP 500"})",
      channel);
  CHECK(text ==
        "⚠️ error: turn_failed\n> ts: 2026-11-30T23:00:00.000Z\n> error: model: HTTP 500");
}

TEST_CASE("a line that is not JSON is reported as it is", "[app]") {
  RecordingChannel channel;
  CHECK(gantry::app::renderReport("plain", channel) == "⚠️ plain");
}

TEST_CASE("a broken server's repeated error reaches the owner once, then with a count", "[app]") {
  RecordingChannel channel;
  auto now = std::chrono::steady_clock::time_point{};
  std::mutex clock_mutex;
  auto clock = [&] {
    std::lock_guard lock(clock_mutex);
    return now;
  };
  std::vector<std::string> sent;
  {
    gantry::app::ErrorReporter reporter(channel, "1", gantry::LogLevel::kError, clock);
    for (int i = 0; i < 8; ++i) {
      gantry::log::error("mcp_server_failed", {{"server", "broken"}, {"error", "exit 1"}});
    }
    REQUIRE(channel.waitSent(1).size() == 1);
    {
      std::lock_guard lock(clock_mutex);
      now += std::chrono::minutes(31);
    }
    gantry::log::error("mcp_server_failed", {{"server", "broken"}, {"error", "exit 1"}});
    sent = channel.waitSent(2);
  }
  REQUIRE(sent.size() == 2);
  CHECK(sent[0].find("mcp_server_failed") != std::string::npos);
  CHECK(sent[1].find("(repeated 7 times in the last 30 min)") != std::string::npos);
}
