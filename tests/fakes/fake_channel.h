#pragma once
/// FakeChannel: a gantry::Channel that records what the core sends, edits and streams, and
/// lets a test wait for a text to appear. Bubbles are injected by calling the core's
/// InboundSink directly (see message()). Thread-safe.

#include <chrono>
#include <condition_variable>
#include <functional>
#include <map>
#include <mutex>
#include <string>
#include <vector>

#include "gantry/channel.h"

namespace gantry::testing {

class FakeChannel final : public Channel {
 public:
  explicit FakeChannel(ChannelCaps caps = {}) : caps_(caps) {}

  ChannelCaps caps() const noexcept override { return caps_; }
  Status run(InboundSink&) noexcept override { return Status::ok(); }
  void stop() noexcept override {}
  Result<std::string> send(const std::string&, std::string_view text) noexcept override {
    std::lock_guard lock(mutex_);
    if (fail_sends_) return Status::retry("fake channel: send refused");
    std::string id = std::to_string(bubbles_.size() + 1);
    bubbles_[id] = std::string(text);
    sent_.emplace_back(text);
    shown_.emplace_back(text);
    cv_.notify_all();
    return id;
  }
  Status edit(const std::string&, const std::string& id, std::string_view text) noexcept override {
    std::lock_guard lock(mutex_);
    bubbles_[id] = std::string(text);
    shown_.emplace_back(text);
    cv_.notify_all();
    return Status::ok();
  }
  Status typing(const std::string& chat_id) noexcept override {
    std::unique_lock lock(mutex_);
    typed_.push_back(chat_id);
    cv_.notify_all();
    cv_.wait(lock, [this] { return !hold_typing_; });
    return Status::ok();
  }
  Result<std::string> sendPhoto(const std::string& chat, const Image&,
                                std::string_view caption) noexcept override {
    return send(chat, caption);
  }
  Status streamText(const std::string&, std::string_view delta, bool final) noexcept override {
    std::lock_guard lock(mutex_);
    terminal_ += std::string(delta) + (final ? "\n" : "");
    return Status::ok();
  }
  void event(const std::string&, const TurnEvent&) noexcept override {}
  void status(const std::string&, std::string_view text) noexcept override {
    std::lock_guard lock(mutex_);
    statuses_.emplace_back(text);
    cv_.notify_all();
  }
  /// Every status line shown ("" when one was removed), in order.
  std::vector<std::string> statuses() {
    std::lock_guard lock(mutex_);
    return statuses_;
  }

  /// While true, send() fails (a platform outage).
  void failSends(bool fail) {
    std::lock_guard lock(mutex_);
    fail_sends_ = fail;
  }

  /// While true, typing() blocks until released (a platform slow to answer).
  void holdTyping(bool hold) {
    std::lock_guard lock(mutex_);
    hold_typing_ = hold;
    cv_.notify_all();
  }
  /// The chat of every typing indicator so far, in order.
  std::vector<std::string> typed() {
    std::lock_guard lock(mutex_);
    return typed_;
  }
  /// Blocks until n typing indicators were shown (false after a guard time).
  bool waitForTyping(std::size_t n) {
    std::unique_lock lock(mutex_);
    return cv_.wait_for(lock, std::chrono::seconds(10), [&] { return typed_.size() >= n; });
  }

  /// A message from the allowlisted test user on chat "chat".
  static InboundMessage message(std::string text) {
    return {"chat", "user", "User", std::move(text), {}, {}};
  }
  /// Every text a bubble ever showed: each send and each edit, in order.
  std::vector<std::string> shown() {
    std::lock_guard lock(mutex_);
    return shown_;
  }
  /// What was streamed to the terminal (a final delta ends a line).
  std::string terminal() {
    std::lock_guard lock(mutex_);
    return terminal_;
  }
  /// Every text sent, in order (as first sent; edits are in bubbles()).
  std::vector<std::string> sent() {
    std::lock_guard lock(mutex_);
    return sent_;
  }
  /// What each bubble shows now, in the order they were sent.
  std::vector<std::string> bubbles() {
    std::lock_guard lock(mutex_);
    std::vector<std::string> out;
    for (std::size_t i = 1; i <= bubbles_.size(); ++i) out.push_back(bubbles_[std::to_string(i)]);
    return out;
  }
  /// What the bubble with this id ("1" for the first) shows now.
  std::string bubble(const std::string& id) {
    std::lock_guard lock(mutex_);
    return bubbles_[id];
  }
  /// Blocks until the texts sent so far satisfy done (false after a guard time).
  bool waitUntilSent(const std::function<bool(const std::vector<std::string>&)>& done) {
    std::unique_lock lock(mutex_);
    return cv_.wait_for(lock, std::chrono::seconds(10), [&] { return done(sent_); });
  }
  /// Blocks until some bubble shows text (false after a guard time).
  bool waitFor(const std::string& text) {
    std::unique_lock lock(mutex_);
    return cv_.wait_for(lock, std::chrono::seconds(10), [&] {
      for (const auto& [id, shown] : bubbles_) {
        if (shown == text) return true;
      }
      return false;
    });
  }

 private:
  ChannelCaps caps_;
  std::mutex mutex_;
  std::condition_variable cv_;
  std::map<std::string, std::string> bubbles_;
  std::vector<std::string> sent_;
  std::vector<std::string> shown_;
  std::string terminal_;
  std::vector<std::string> statuses_;
  std::vector<std::string> typed_;
  bool fail_sends_ = false;
  bool hold_typing_ = false;
};

}  // namespace gantry::testing
