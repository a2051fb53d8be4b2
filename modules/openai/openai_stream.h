#pragma once
/// Streaming pieces of the OpenAI wire format: SSE framing, think-block filtering and
/// assembly of chunks into one response. Pure: no I/O, no clocks, no threads.

#include <functional>
#include <map>
#include <string>
#include <string_view>

#include "gantry/provider.h"
#include "gantry/status.h"
#include "rapidjson/fwd.h"

namespace gantry::openai {

/// Moves <think>…</think> blocks out of content, also when the tags arrive split across
/// deltas: text that could still become a tag is held back until it is decided.
class ThinkFilter {
 public:
  /// Feeds the next content piece; appends what is decided to *visible and *reasoning.
  void feed(std::string_view text, std::string* visible, std::string* reasoning);
  /// Ends the content: releases held-back text (to reasoning inside an unclosed block).
  void finish(std::string* visible, std::string* reasoning);

 private:
  void emit(std::string_view text, std::string* visible, std::string* reasoning);

  bool in_think_ = false;
  bool skip_space_ = false;  // whitespace right after </think> is not part of the reply
  std::string held_;         // a possible tag prefix at the end of the last piece
};

/// Splits a text/event-stream byte stream into events and hands over each event's data
/// (data lines joined by "\n"). Accepts LF, CRLF and CR line ends and any chunking. A line or
/// an event's data over `cap` bytes fails the stream, so memory stays bounded by the cap.
class SseParser {
 public:
  using DataFn = std::function<Status(std::string_view data)>;
  static constexpr std::size_t kDefaultCap = std::size_t{4} * 1024 * 1024;

  explicit SseParser(std::size_t cap = kDefaultCap) : cap_(cap) {}

  /// Feeds bytes; calls on_data for every completed event. Stops at and returns the first
  /// failure of on_data.
  Status feed(std::string_view bytes, const DataFn& on_data);
  /// Ends the stream: dispatches a last event that had no blank line after it.
  Status finish(const DataFn& on_data);

 private:
  Status endLine(const DataFn& on_data);
  Status overCap() const;

  std::size_t cap_;
  std::string line_;
  std::string data_;
  bool has_data_ = false;
  bool after_cr_ = false;
};

/// Assembles a streamed response from its chunks: text and reasoning deltas, tool calls by
/// index, usage, finish_reason; forwards deltas to the callbacks (which may be null).
class StreamAssembler {
 public:
  explicit StreamAssembler(const StreamCallbacks* callbacks) : callbacks_(callbacks) {}

  /// Handles the data of one event ("[DONE]" or a chunk). Fails on a chunk that is not JSON
  /// or that carries an API error.
  Status onData(std::string_view data);
  /// True once "[DONE]" arrived.
  bool done() const { return done_; }
  /// True once any delta (text, reasoning, tool call) arrived.
  bool sawDelta() const { return saw_delta_; }
  /// True once a callback has been called: from then on a retry would duplicate output.
  bool delivered() const { return delivered_; }
  /// True when the stream said how it finished (finish_reason or [DONE]).
  bool complete() const { return done_ || !response_.finish_reason.empty(); }
  /// Ends the stream and returns the assembled response.
  ChatResponse finish();

 private:
  Status onChoice(const rapidjson::Value& choice);
  void toolDelta(const rapidjson::Value& delta, int position);
  int slotFor(const rapidjson::Value& delta, int position) const;
  void text(std::string_view content);
  void deliver(std::string_view visible, std::string_view thinking);
  void reasoning(std::string_view text);
  void toolName(int index, std::string_view name);

  const StreamCallbacks* callbacks_;
  ChatResponse response_;
  ThinkFilter think_;
  std::map<int, ToolCall> calls_;
  bool done_ = false;
  bool saw_delta_ = false;
  bool delivered_ = false;
};

}  // namespace gantry::openai
