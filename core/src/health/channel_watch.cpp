#include "health/channel_watch.h"

#include <algorithm>

#include "health/status_text.h"
#include "log/log.h"

namespace gantry::health {
namespace {

int64_t limitMs(const store::Heartbeat& heartbeat) { return 3 * heartbeat.period_s * 1000; }

int64_t sinceReceive(const store::Heartbeat& heartbeat, int64_t now_ms) {
  // A just-started instance that has not received yet is not failing: boot counts as a receive.
  return now_ms - std::max(heartbeat.last_receive_ok_at, heartbeat.started_at);
}

}  // namespace

void ChannelWatch::receiveOk(int64_t now_ms) {
  std::lock_guard lock(mutex_);
  sides_.last_receive_ok_at = now_ms;
}

void ChannelWatch::sendOutcome(const Status& status, int64_t now_ms) {
  std::lock_guard lock(mutex_);
  if (status.isOk()) {
    sides_.send_failing_since = 0;
    sides_.send_error.clear();
  } else if (status.retryable() && sides_.send_failing_since == 0) {
    sides_.send_failing_since = now_ms;
    sides_.send_error = status.message();
  }
}

ChannelWatch::Sides ChannelWatch::sides() const {
  std::lock_guard lock(mutex_);
  return sides_;
}

ChannelVerdict channelVerdict(const store::Heartbeat& heartbeat, int64_t now_ms) {
  ChannelVerdict verdict;
  verdict.receive_failing = sinceReceive(heartbeat, now_ms) > limitMs(heartbeat);
  verdict.send_failing = heartbeat.send_failing_since != 0 &&
                         now_ms - heartbeat.send_failing_since > limitMs(heartbeat);
  return verdict;
}

void logVerdictChange(const ChannelVerdict& before, const ChannelVerdict& now,
                      const store::Heartbeat& heartbeat, int64_t now_ms) {
  if (now.receive_failing && !before.receive_failing) {
    log::warn("channel_receive_failing",
              {{"channel", heartbeat.channel},
               {"for", formatDuration(sinceReceive(heartbeat, now_ms))},
               {"why", "no good receive for 3 heartbeat periods: polls fail or hang"}});
  } else if (before.receive_failing && !now.receive_failing) {
    log::info("channel_receive_recovered", {{"channel", heartbeat.channel}});
  }
  if (now.send_failing && !before.send_failing) {
    log::warn("channel_send_failing",
              {{"channel", heartbeat.channel},
               {"for", formatDuration(now_ms - heartbeat.send_failing_since)},
               {"why", "every send failed for 3 heartbeat periods"},
               {"error", heartbeat.send_error}});
  } else if (before.send_failing && !now.send_failing) {
    log::info("channel_send_recovered", {{"channel", heartbeat.channel}});
  }
}

Result<std::string> WatchedChannel::send(const std::string& chat_id,
                                         std::string_view text) noexcept {
  auto sent = inner().send(chat_id, text);
  watch_.sendOutcome(sent.isOk() ? Status::ok() : sent.status(), store::nowMs());
  return sent;
}

Status WatchedChannel::edit(const std::string& chat_id, const std::string& message_id,
                            std::string_view text) noexcept {
  Status edited = inner().edit(chat_id, message_id, text);
  watch_.sendOutcome(edited, store::nowMs());
  return edited;
}

Result<std::string> WatchedChannel::sendPhoto(const std::string& chat_id, const Image& image,
                                              std::string_view caption) noexcept {
  auto sent = inner().sendPhoto(chat_id, image, caption);
  watch_.sendOutcome(sent.isOk() ? Status::ok() : sent.status(), store::nowMs());
  return sent;
}

}  // namespace gantry::health
