#include "chat/reply_stream.h"

#include <catch2/catch.hpp>
#include <chrono>
#include <thread>

#include "fakes/fake_channel.h"

using gantry::chat::ReplyStream;
using gantry::chat::StreamOptions;
using gantry::config::TraceMode;
using gantry::testing::FakeChannel;

namespace {

/// A channel that edits bubbles in place, or a terminal that takes a raw stream.
gantry::ChannelCaps caps(bool terminal) {
  gantry::ChannelCaps caps;
  caps.can_edit = !terminal;
  caps.raw_stream = terminal;
  return caps;
}

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
  FakeChannel channel(caps(false));
  ReplyStream stream(channel, "c", streaming(TraceMode::kCompact));
  twoCalls(stream);
  stream.onText("Done.");
  REQUIRE(stream.finish("Done."));
  CHECK(channel.bubble("1") == "Making calls: ✓ ✗\n\nDone.");
}

TEST_CASE("the final edit keeps the full tool trace above the reply", "[chat]") {
  FakeChannel channel(caps(false));
  ReplyStream stream(channel, "c", streaming(TraceMode::kFull));
  twoCalls(stream);
  REQUIRE(stream.finish("Done."));
  CHECK(channel.bubble("1") ==
        "✓ memory_recall 1.2s · 4.1k chars\n✗ cron_add 0.3s · 12 chars\n\nDone.");
}

TEST_CASE("a cancelled turn keeps its trace above the note", "[chat]") {
  FakeChannel channel(caps(false));
  ReplyStream stream(channel, "c", streaming(TraceMode::kCompact));
  twoCalls(stream);
  stream.abandon("(cancelled)");
  CHECK(channel.bubble("1") == "Making calls: ✓ ✗\n\n(cancelled)");
}

TEST_CASE("with the trace off the final edit shows the reply alone", "[chat]") {
  FakeChannel channel(caps(false));
  ReplyStream stream(channel, "c", streaming(TraceMode::kOff));
  stream.onText("partial");
  REQUIRE(stream.finish("the whole reply"));
  CHECK(channel.bubble("1") == "the whole reply");
}

TEST_CASE("a terminal shows the compact trace as one line before the reply", "[chat]") {
  FakeChannel channel(caps(true));
  ReplyStream stream(channel, "c", streaming(TraceMode::kCompact));
  twoCalls(stream);
  stream.onText("Do");
  stream.onText("ne.");
  REQUIRE(stream.finish("Done."));
  CHECK(channel.terminal() == "Making calls: ✓ ✗\nDone.\n");
}

TEST_CASE("a terminal shows one full trace line per tool start and end", "[chat]") {
  FakeChannel channel(caps(true));
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
  FakeChannel channel(caps(true));
  ReplyStream stream(channel, "c", streaming(TraceMode::kOff));
  twoCalls(stream);
  REQUIRE(stream.finish("Done."));
  CHECK(channel.terminal() == "Done.\n");
}

TEST_CASE("a terminal shows the spin-up notice as a status line that the turn removes", "[chat]") {
  FakeChannel channel(caps(true));
  StreamOptions options = streaming(TraceMode::kCompact);
  options.spinup_ms = 4000;
  options.spinup_at_once = true;
  {
    ReplyStream stream(channel, "c", options);
    for (int i = 0; i < 500 && channel.statuses().empty(); ++i) {
      std::this_thread::sleep_for(std::chrono::milliseconds(10));
    }
    REQUIRE(stream.finish("Hello."));
  }
  CHECK(channel.statuses() == std::vector<std::string>{"⏳ working on it…", ""});
  CHECK(channel.terminal() == "Hello.\n");
  CHECK(channel.sent().empty());  // never a message of its own
}
