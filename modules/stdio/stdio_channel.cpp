#include "stdio_channel.h"

#include <fcntl.h>
#include <poll.h>
#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <iostream>
#include <string>

#include "gantry/guard.h"
#include "stdio_format.h"

namespace gantry::stdio {
namespace {

constexpr const char* kChatId = "stdio";

constexpr int kDefaultHeartbeatSeconds = 30;  // core's HEARTBEAT_SECONDS default

/// HEARTBEAT_SECONDS in milliseconds: `gantry status` calls a channel failing after three
/// periods without a good receive, so an idle terminal reports one each period.
int heartbeatMs(const Host& host) {
  int seconds = kDefaultHeartbeatSeconds;
  if (auto value = host.config("HEARTBEAT_SECONDS")) {
    try {
      seconds = std::stoi(*value);
    } catch (const std::exception&) {
      // core's configuration check refuses it before any channel runs
    }
  }
  return std::clamp(seconds, 1, 86400) * 1000;
}

}  // namespace

StdioChannel::StdioChannel(Host& host, bool jsonl, bool interactive)
    : host_(host), jsonl_(jsonl), interactive_(interactive), idle_ms_(heartbeatMs(host)) {
  if (::pipe2(wake_, O_CLOEXEC | O_NONBLOCK) != 0) wake_[0] = wake_[1] = -1;
}

StdioChannel::~StdioChannel() {
  for (int fd : wake_) {
    if (fd >= 0) ::close(fd);
  }
}

bool StdioChannel::waitForInput(InboundSink& sink) {
  // Without the pipe (out of descriptors) stop() is seen within the poll's bound instead.
  const int timeout = wake_[0] >= 0 ? idle_ms_ : 200;
  while (!stop_) {
    pollfd fds[2] = {{STDIN_FILENO, POLLIN, 0}, {wake_[0], POLLIN, 0}};
    int ready = ::poll(fds, wake_[0] >= 0 ? 2 : 1, timeout);
    if (stop_) return false;
    if (ready != 0) return true;  // input, end of input or an error: read() tells which
    sink.onReceiveOk();
  }
  return false;
}

ChannelCaps StdioChannel::caps() const noexcept {
  ChannelCaps caps;
  caps.max_message_chars = 1 << 20;
  caps.can_edit = false;
  caps.raw_stream = !jsonl_;
  caps.ordered_input = !interactive_;
  caps.renders_events = jsonl_;
  caps.replays_inbox = false;  // a terminal's or a pipe's input does not come back
  caps.shows_typing = false;
  return caps;
}

Status StdioChannel::run(InboundSink& sink) noexcept {
  return guard("stdio: run", [&]() -> Status {
    std::string line;
    prompt();
    while (!stop_ && !host_.stopping()) {
      // Lines already read wait in the reader, where poll() cannot see them.
      if (!input_.ready() && !waitForInput(sink)) break;
      sink.onReceiveOk();
      if (!input_.next(&line)) break;  // end of input
      if (!line.empty() && line.back() == '\r') line.pop_back();
      if (line.find_first_not_of(" \t") == std::string::npos) {
        prompt();
        continue;
      }
      InboundMessage message{kChatId, "local", "local", line, {}, {}};
      if (jsonl_) {
        std::string err;
        auto text = parseJsonlInput(line, &err);
        if (!text) {
          event(kChatId, {TurnEvent::Kind::kError, {}, false, 0, err});
          continue;
        }
        message.text = *text;
      }
      sink.onMessage(std::move(message));
    }
    return Status::ok();
  });
}

void StdioChannel::stop() noexcept {
  stop_ = true;
  if (wake_[1] >= 0) {
    const char byte = 1;
    [[maybe_unused]] ssize_t n = ::write(wake_[1], &byte, 1);  // full: a wake is pending already
  }
}

void StdioChannel::clearStatusLocked() {
  if (!status_shown_) return;
  std::fputs("\r\033[K", stdout);  // back to the line's start, erase to its end
  status_shown_ = false;
}

void StdioChannel::writeLine(std::string_view line) {
  std::lock_guard lock(out_mutex_);
  clearStatusLocked();
  if (mid_stream_) {
    std::fputc('\n', stdout);
    mid_stream_ = false;
  }
  std::fwrite(line.data(), 1, line.size(), stdout);
  std::fputc('\n', stdout);
  std::fflush(stdout);
}

void StdioChannel::prompt() {
  if (!interactive_ || jsonl_) return;
  std::lock_guard lock(out_mutex_);
  std::fputs("> ", stdout);
  std::fflush(stdout);
}

Result<std::string> StdioChannel::send(const std::string&, std::string_view text) noexcept {
  return guard("stdio: send", [&]() -> Result<std::string> {
    writeLine(jsonl_ ? jsonlReply(text) : std::string(text));
    prompt();
    return std::string();
  });
}

Status StdioChannel::edit(const std::string&, const std::string&, std::string_view) noexcept {
  return Status::error("stdio: messages cannot be edited");
}

Status StdioChannel::typing(const std::string&) noexcept { return Status::ok(); }

Result<std::string> StdioChannel::sendPhoto(const std::string& chat_id, const Image& image,
                                            std::string_view caption) noexcept {
  std::string text = std::string(caption);
  text += (text.empty() ? "" : "\n") + std::string("[image] ") +
          (image.url.empty() ? image.mime_type : image.url);
  return send(chat_id, text);
}

Status StdioChannel::streamText(const std::string&, std::string_view delta, bool final) noexcept {
  return guard("stdio: stream", [&]() -> Status {
    std::lock_guard lock(out_mutex_);
    clearStatusLocked();
    std::fwrite(delta.data(), 1, delta.size(), stdout);
    mid_stream_ = !final;
    if (final) std::fputc('\n', stdout);
    std::fflush(stdout);
    return Status::ok();
  });
}

void StdioChannel::event(const std::string&, const TurnEvent& event) noexcept {
  if (!jsonl_) return;
  try {
    writeLine(jsonlEvent(event));
  } catch (...) {  // never let an event crash a turn
  }
}

std::string StdioChannel::ownerChat() const noexcept { return kChatId; }

void StdioChannel::status(const std::string&, std::string_view text) noexcept {
  // A pipe's reader gets replies only.
  if (!interactive_ || jsonl_ || ::isatty(STDOUT_FILENO) != 1) return;
  try {
    std::lock_guard lock(out_mutex_);
    if (mid_stream_) return;  // the reply has begun: nothing to stand in for it
    clearStatusLocked();
    if (text.empty()) return;
    std::fwrite(text.data(), 1, text.size(), stdout);
    std::fflush(stdout);
    status_shown_ = true;
  } catch (...) {  // a status line is never worth a failure
  }
}

}  // namespace gantry::stdio
