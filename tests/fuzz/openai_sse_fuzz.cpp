// The model's stream (openai/openai_stream.h): SseParser framing, fed whole and in pieces,
// gives the same events; each event's data then goes through the StreamAssembler as the
// provider does, with callbacks set, and the response is assembled.

#include <string>
#include <vector>

#include "fuzz_support.h"
#include "openai_stream.h"

namespace {

using gantry::Status;
using gantry::openai::SseParser;

/// The events a parser handed over and how the stream ended.
struct Record {
  std::vector<std::string> events;
  bool ok = true;
  std::string error;

  bool operator==(const Record&) const = default;
};

template <typename Feed>
Record frame(Feed&& feed) {
  Record record;
  SseParser parser(256);
  const SseParser::DataFn collect = [&](std::string_view data) {
    record.events.emplace_back(data);
    return Status::ok();
  };
  Status status = feed(parser, collect);
  if (status.isOk()) status = parser.finish(collect);
  record.ok = status.isOk();
  record.error = status.message();
  return record;
}

void assemble(const std::vector<std::string>& events) {
  std::size_t seen = 0;
  gantry::StreamCallbacks callbacks;
  callbacks.on_text = [&](std::string_view text) { seen += text.size(); };
  callbacks.on_reasoning = [&](std::string_view text) { seen += text.size(); };
  callbacks.on_tool = [&](int, std::string_view name) { seen += name.size(); };
  gantry::openai::StreamAssembler assembler(&callbacks);
  for (const auto& event : events) {
    if (!assembler.onData(event).isOk()) break;
  }
  const auto response = assembler.finish();
  gantry::fuzz::require(seen == 0 || assembler.delivered(),
                        "a callback marks the stream delivered");
  (void)response;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const auto bytes = gantry::fuzz::asText(data, size);
  const Record whole =
      frame([&](SseParser& parser, const SseParser::DataFn& fn) { return parser.feed(bytes, fn); });
  const Record pieces = frame([&](SseParser& parser, const SseParser::DataFn& fn) {
    Status status = Status::ok();
    gantry::fuzz::feedInPieces(bytes, [&](std::string_view piece) {
      if (status.isOk()) status = parser.feed(piece, fn);
    });
    return status;
  });
  gantry::fuzz::require(whole == pieces, "SseParser gives the same events for any chunking");
  assemble(whole.events);
  return 0;
}
