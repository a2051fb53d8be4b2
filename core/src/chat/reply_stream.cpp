#include "chat/reply_stream.h"

#include <cstdio>

#include "gantry/text/split.h"
#include "log/log.h"

namespace gantry::chat {
namespace {

constexpr const char* kSpinupText = "⏳ working on it…";

std::string formatK(std::size_t chars) {
  if (chars < 1000) return std::to_string(chars);
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.1fk", static_cast<double>(chars) / 1000.0);
  return buf;
}

}  // namespace

std::string traceStats(int64_t ms, std::size_t chars) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.1fs", static_cast<double>(ms) / 1000.0);
  return std::string(buf) + " · " + formatK(chars) + " chars";
}

std::string compactTrace(const std::vector<bool>& results, std::size_t running) {
  std::string line = "Making calls:";
  for (bool ok : results) line += ok ? " ✓" : " ✗";
  for (std::size_t i = 0; i < running; ++i) line += " …";
  return line;
}

ReplyStream::ReplyStream(Channel& channel, std::string chat_id, StreamOptions options)
    : channel_(channel), chat_id_(std::move(chat_id)), options_(options), caps_(channel.caps()) {
  if ((editable() || raw()) && options_.spinup_ms > 0) {
    spinup_ = std::thread([this] { spinupLoop(); });
  }
}

ReplyStream::~ReplyStream() { stopSpinup(); }

void ReplyStream::stopSpinup() {
  {
    std::lock_guard lock(mutex_);
    done_ = true;
  }
  cv_.notify_all();
  if (!spinup_.joinable()) return;
  spinup_.join();
  // A terminal's status line goes with the turn, also when no reply replaced it.
  if (raw() && !spinup_text_.empty()) channel_.status(chat_id_, "");
}

// Shows the notice when the model has been silent for spinup_ms (at once on the first turn
// after start), unless something is already on screen.
void ReplyStream::spinupLoop() {
  std::unique_lock lock(mutex_);
  auto wait = options_.spinup_at_once ? std::chrono::milliseconds(0)
                                      : std::chrono::milliseconds(options_.spinup_ms);
  if (cv_.wait_for(lock, wait, [this] { return done_ || activity_; })) return;
  if (!message_id_.empty()) return;
  spinup_text_ = kSpinupText;
  // A terminal shows it as a status line that the reply's first output erases.
  if (raw()) return channel_.status(chat_id_, spinup_text_);
  renderLocked(true);
}

std::string ReplyStream::traceLocked() const {
  std::string trace;
  if (options_.trace == config::TraceMode::kCompact && !trace_.empty()) {
    std::vector<bool> results;
    std::size_t running = 0;
    for (const auto& line : trace_) {
      if (line == "…")
        ++running;
      else
        results.push_back(line == "✓");
    }
    trace = compactTrace(results, running);
  } else if (options_.trace == config::TraceMode::kFull) {
    for (const auto& line : trace_) trace += (trace.empty() ? "" : "\n") + line;
  }
  return trace;
}

std::string ReplyStream::bubbleLocked() const {
  std::string trace = traceLocked();
  // The end that may begin a secret waits for the next delta (the channel redacts whole
  // secrets; a bubble must never show the first half of one).
  std::string body =
      text_.empty() ? spinup_text_ : text_.substr(0, text_.size() - log::redactionHoldBack(text_));
  if (trace.empty()) return body;
  return body.empty() ? trace : trace + "\n\n" + body;
}

// A terminal cannot edit what it printed, so trace lines are written as they happen: full
// mode one line per start and per end, compact mode one `Making calls:` line that grows.
void ReplyStream::rawTraceLocked(const std::string& line) {
  if (options_.trace == config::TraceMode::kOff) return;
  bool compact = options_.trace == config::TraceMode::kCompact;
  if (compact && raw_line_open_) {
    channel_.streamText(chat_id_, line, false);
    return;
  }
  if (raw_mid_line_) channel_.streamText(chat_id_, "\n", false);
  raw_mid_line_ = false;
  if (compact) {
    channel_.streamText(chat_id_, "Making calls:" + line, false);
    raw_line_open_ = true;
  } else {
    channel_.streamText(chat_id_, line + "\n", false);
  }
}

// Ends an open compact trace line before reply text follows it.
void ReplyStream::closeRawTraceLocked() {
  if (!raw_line_open_) return;
  channel_.streamText(chat_id_, "\n", false);
  raw_line_open_ = false;
}

// Sends or edits the bubble; throttled unless forced. Called with mutex_ held.
void ReplyStream::renderLocked(bool force) {
  if (!editable()) return;
  auto now = std::chrono::steady_clock::now();
  if (!force && now - last_edit_ < options_.edit_interval) return;
  std::string bubble = bubbleLocked();
  if (bubble.empty() || bubble == shown_) return;
  bubble = bubble.substr(0, text::utf8Prefix(bubble, caps_.max_message_chars));
  last_edit_ = now;
  if (message_id_.empty()) {
    auto sent = channel_.send(chat_id_, bubble);
    if (sent.isOk()) message_id_ = sent.value();
  } else if (Status s = channel_.edit(chat_id_, message_id_, bubble); !s.isOk()) {
    log::warn("stream_edit_failed", {{"error", s.message()}});
  }
  shown_ = bubble;
}

void ReplyStream::onText(std::string_view delta) {
  std::lock_guard lock(mutex_);
  activity_ = true;
  cv_.notify_all();
  if (raw()) {
    closeRawTraceLocked();
    raw_started_ = true;
    raw_mid_line_ = !delta.empty() && delta.back() != '\n';
    channel_.streamText(chat_id_, delta, false);
    return;
  }
  text_.append(delta);
  // Past the platform limit the bubble is frozen at a clean cut and a new one begins.
  if (editable() && text_.size() > caps_.max_message_chars - 64) {
    std::size_t cut = text::cutPoint(text_, caps_.max_message_chars - 64);
    cut -= log::redactionHoldBack(std::string_view(text_).substr(0, cut));  // no split secret
    std::string head = text_.substr(0, cut);
    if (message_id_.empty()) {
      channel_.send(chat_id_, head);
    } else {
      channel_.edit(chat_id_, message_id_, head);
    }
    text_.erase(0, cut);
    committed_ += cut;
    message_id_.clear();
    shown_.clear();
    trace_.clear();
  }
  renderLocked(false);
}

void ReplyStream::onReasoning(std::string_view) {
  std::lock_guard lock(mutex_);
  activity_ = true;
  cv_.notify_all();
}

void ReplyStream::onTextDiscarded() {
  std::lock_guard lock(mutex_);
  text_.clear();
  committed_ = 0;
  renderLocked(true);
}

void ReplyStream::onToolStart(const std::string& name) {
  std::lock_guard lock(mutex_);
  activity_ = true;
  cv_.notify_all();
  trace_.push_back(options_.trace == config::TraceMode::kFull ? "→ " + name : "…");
  if (raw() && options_.trace == config::TraceMode::kFull) rawTraceLocked(trace_.back());
  if (raw() && options_.trace == config::TraceMode::kCompact) rawTraceLocked("");
  renderLocked(true);
}

void ReplyStream::onNotice(const std::string& text) {
  {
    std::lock_guard lock(mutex_);
    activity_ = true;
    cv_.notify_all();
    if (raw()) closeRawTraceLocked();
  }
  channel_.send(chat_id_, text);
}

void ReplyStream::onToolEnd(const std::string& name, bool ok, int64_t ms, std::size_t chars) {
  channel_.event(chat_id_, {TurnEvent::Kind::kTool, name, ok, ms, {}});
  std::lock_guard lock(mutex_);
  std::string running = options_.trace == config::TraceMode::kFull ? "→ " + name : "…";
  std::string finished = options_.trace == config::TraceMode::kFull
                             ? std::string(ok ? "✓ " : "✗ ") + name + " " + traceStats(ms, chars)
                             : std::string(ok ? "✓" : "✗");
  for (auto& line : trace_) {
    if (line == running) {
      line = finished;
      break;
    }
  }
  if (raw()) rawTraceLocked(options_.trace == config::TraceMode::kFull ? finished : " " + finished);
  renderLocked(true);
}

// The trace stays above the reply (only the spin-up line is transient); a trace too long
// for the bubble keeps its first lines.
std::string ReplyStream::tracePrefixLocked() const {
  std::string trace = traceLocked();
  if (trace.empty()) return trace;
  std::size_t limit = caps_.max_message_chars / 2;
  if (trace.size() > limit) trace = trace.substr(0, text::cutPoint(trace, limit));
  return trace + "\n\n";
}

bool ReplyStream::finish(const std::string& reply) {
  stopSpinup();
  std::lock_guard lock(mutex_);
  closeRawTraceLocked();
  if (raw_started_) return channel_.streamText(chat_id_, "", true).isOk();
  if (raw()) {  // nothing was streamed (e.g. the reply was held back): write it whole
    return channel_.streamText(chat_id_, reply, true).isOk();
  }
  std::string rest = committed_ < reply.size() ? reply.substr(committed_) : reply;
  if (editable() && !message_id_.empty()) {
    // The bubble shows the trace and part of the reply stream; the final text replaces the
    // streamed part and the trace stays.
    std::string prefix = tracePrefixLocked();
    std::size_t cut = text::cutPoint(rest, caps_.max_message_chars - prefix.size());
    if (Status s = channel_.edit(chat_id_, message_id_, prefix + rest.substr(0, cut)); !s.isOk()) {
      log::warn("final_edit_failed", {{"error", s.message()}});
      return channel_.send(chat_id_, rest).isOk();
    }
    rest.erase(0, cut);
    while (!rest.empty() && (rest.front() == '\n' || rest.front() == ' ')) rest.erase(0, 1);
    if (rest.empty()) return true;
  }
  auto sent = channel_.send(chat_id_, rest);
  if (!sent.isOk()) log::error("reply_send_failed", {{"error", sent.status().message()}});
  return sent.isOk();
}

void ReplyStream::abandon(const std::string& note) {
  stopSpinup();
  std::lock_guard lock(mutex_);
  closeRawTraceLocked();
  if (raw_started_) channel_.streamText(chat_id_, "", true);
  if (editable() && !message_id_.empty()) {
    channel_.edit(chat_id_, message_id_, tracePrefixLocked() + note);
  }
}

}  // namespace gantry::chat
