#include "chat/reply_stream.h"

#include <catch2/catch.hpp>
#include <map>
#include <mutex>

using gantry::chat::ReplyStream;
using gantry::chat::StreamOptions;
using gantry::config::TraceMode;

namespace {

/// A channel that keeps what each bubble shows and what was streamed to a terminal.
class FakeChannel final : public gantry::Channel {
 public:
  explicit FakeChannel(bool terminal) {
    caps_.max_message_chars = 4096;
    caps_.can_edit = !terminal;
    caps_.raw_stream = terminal;
  }
  gantry::ChannelCaps caps() const noexcept override { return caps_; }
  gantry::Status run(gantry::InboundSink&) noexcept override { return gantry::Status::ok(); }
  void stop() noexcept override {}
  gantry::Result<std::string> send(const std::string&, std::string_view text) noexcept override {
    std::lock_guard lock(mutex_);
    std::string id = std::to_string(bubbles_.size() + 1);
    bubbles_[id] = std::string(text);
    return id;
  }
  gantry::Status edit(const std::string&, const std::string& id,
                      std::string_view text) noexcept override {
    std::lock_guard lock(mutex_);
    bubbles_[id] = std::string(text);
    return gantry::Status::ok();
  }
  gantry::Status typing(const std::string&) noexcept override { return gantry::Status::ok(); }
  gantry::Result<std::string> sendPhoto(const std::string& chat, const gantry::Image&,
                                        std::string_view caption) noexcept override {
    return send(chat, caption);
  }
  gantry::Status streamText(const std::string&, std::string_view delta,
                            bool final) noexcept override {
    std::lock_guard lock(mutex_);
    terminal_ += std::string(delta) + (final ? "\n" : "");
    return gantry::Status::ok();
  }
  void event(const std::string&, const gantry::TurnEvent&) noexcept override {}

  std::string bubble(const std::string& id) {
    std::lock_guard lock(mutex_);
    return bubbles_[id];
  }
  std::string terminal() {
    std::lock_guard lock(mutex_);
    return terminal_;
  }

 private:
  gantry::ChannelCaps caps_;
  std::mutex mutex_;
  std::map<std::string, std::string> bubbles_;
  std::string terminal_;
};

StreamOptions streaming(TraceMode trace) {
  StreamOptions options;
  options.stream = true;
  options.trace = trace;
  options.spinup_ms = 0;
  return options;
}

void twoCalls(ReplyStream& stream) {
  stream.onToolStart("memory_recall");
  stream.onToolEnd("memory_recall", true, 1200, 4100);
  stream.onToolStart("cron_add");
  stream.onToolEnd("cron_add", false, 300, 12);
}

}  // namespace

TEST_CASE("the final edit keeps the compact tool trace above the reply", "[chat]") {
  FakeChannel channel(false);
  ReplyStream stream(channel, "c", streaming(TraceMode::kCompact));
  twoCalls(stream);
  stream.onText("Done.");
  REQUIRE(stream.finish("Done."));
  CHECK(channel.bubble("1") == "Making calls: ✓ ✗\n\nDone.");
}

TEST_CASE("the final edit keeps the full tool trace above the reply", "[chat]") {
  FakeChannel channel(false);
  ReplyStream stream(channel, "c", streaming(TraceMode::kFull));
  twoCalls(stream);
  REQUIRE(stream.finish("Done."));
  CHECK(channel.bubble("1") ==
        "✓ memory_recall 1.2s · 4.1k chars\n✗ cron_add 0.3s · 12 chars\n\nDone.");
}

TEST_CASE("a cancelled turn keeps its trace above the note", "[chat]") {
  FakeChannel channel(false);
  ReplyStream stream(channel, "c", streaming(TraceMode::kCompact));
  twoCalls(stream);
  stream.abandon("(cancelled)");
  CHECK(channel.bubble("1") == "Making calls: ✓ ✗\n\n(cancelled)");
}

TEST_CASE("with the trace off the final edit shows the reply alone", "[chat]") {
  FakeChannel channel(false);
  ReplyStream stream(channel, "c", streaming(TraceMode::kOff));
  stream.onText("partial");
  REQUIRE(stream.finish("the whole reply"));
  CHECK(channel.bubble("1") == "the whole reply");
}

TEST_CASE("a terminal shows the compact trace as one line before the reply", "[chat]") {
  FakeChannel channel(true);
  ReplyStream stream(channel, "c", streaming(TraceMode::kCompact));
  twoCalls(stream);
  stream.onText("Do");
  stream.onText("ne.");
  REQUIRE(stream.finish("Done."));
  CHECK(channel.terminal() == "Making calls: ✓ ✗\nDone.\n");
}

TEST_CASE("a terminal shows one full trace line per tool start and end", "[chat]") {
  FakeChannel channel(true);
  ReplyStream stream(channel, "c", streaming(TraceMode::kFull));
  stream.onText("Let me look.");
  twoCalls(stream);
  stream.onText("Done.");
  REQUIRE(stream.finish("Done."));
  CHECK(channel.terminal() ==
        "Let me look.\n→ memory_recall\n✓ memory_recall 1.2s · 4.1k chars\n→ cron_add\n"
        "✗ cron_add 0.3s · 12 chars\nDone.\n");
}

TEST_CASE("a terminal with the trace off shows only the reply", "[chat]") {
  FakeChannel channel(true);
  ReplyStream stream(channel, "c", streaming(TraceMode::kOff));
  twoCalls(stream);
  REQUIRE(stream.finish("Done."));
  CHECK(channel.terminal() == "Done.\n");
}
