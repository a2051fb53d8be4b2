// MCP's Server-Sent Events reader (mcp/sse_reader.h): any bytes, fed whole and in small pieces,
// must not crash and must give the same events, oversize reports, last id and retry delay.

#include <string>
#include <vector>

#include "fuzz_support.h"
#include "mcp/sse_reader.h"

namespace {

/// Everything a reader reported, in order, for comparing two feedings.
struct Record {
  std::vector<std::string> events;
  std::string last_id;
  long long retry_ms = -1;

  bool operator==(const Record&) const = default;
};

template <typename Feed>
Record read(std::size_t cap, Feed&& feed) {
  Record record;
  gantry::mcp::SseReader reader(
      cap, [&](std::string_view data) { record.events.emplace_back(data); },
      [&](std::string_view head, std::string_view tail, std::size_t length) {
        record.events.push_back("oversize " + std::to_string(length) + ":" + std::string(head) +
                                "|" + std::string(tail));
      });
  feed(reader);
  reader.finish();
  record.last_id = reader.lastEventId();
  if (auto retry = reader.retry()) record.retry_ms = retry->count();
  return record;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const auto bytes = gantry::fuzz::asText(data, size);
  for (std::size_t cap : {std::size_t{64}, std::size_t{1} << 20}) {
    const Record whole = read(cap, [&](auto& reader) { reader.feed(bytes); });
    const Record pieces = read(cap, [&](auto& reader) {
      gantry::fuzz::feedInPieces(bytes, [&](std::string_view piece) { reader.feed(piece); });
    });
    gantry::fuzz::require(whole == pieces, "SseReader reports the same for any chunking");
  }
  return 0;
}
