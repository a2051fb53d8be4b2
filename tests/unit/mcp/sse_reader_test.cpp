#include "mcp/sse_reader.h"

#include <catch2/catch.hpp>
#include <string>
#include <vector>

using namespace gantry::mcp;

namespace {

struct Events {
  std::vector<std::string> data;
  std::vector<std::size_t> oversize;
  std::string head, tail;
  SseReader reader(std::size_t cap = 1 << 20) {
    return SseReader(
        cap, [this](std::string_view event) { data.emplace_back(event); },
        [this](std::string_view h, std::string_view t, std::size_t length) {
          oversize.push_back(length);
          head = h;
          tail = t;
        });
  }
};

}  // namespace

TEST_CASE("server-sent events yield their data lines joined, for every line ending", "[mcp]") {
  Events events;
  auto reader = events.reader();
  reader.feed("event: message\r\nid: 1\r\ndata: {\"a\":");
  reader.feed("1}\r\n\r\n: comment\n\ndata: x\ndata: y\n\ndata: cr\r\r");
  reader.feed("data: last");
  reader.finish();
  CHECK(events.data == std::vector<std::string>{"{\"a\":1}", "x\ny", "cr", "last"});
}

TEST_CASE("a CRLF split across two reads is one line end", "[mcp]") {
  Events events;
  auto reader = events.reader();
  reader.feed("data: a\r");
  reader.feed("\n\r");
  reader.feed("\ndata: b\n\n");
  CHECK(events.data == std::vector<std::string>{"a", "b"});
}

TEST_CASE("the last event id and the retry delay are kept for resuming", "[mcp]") {
  Events events;
  auto reader = events.reader();
  CHECK(reader.lastEventId().empty());
  CHECK_FALSE(reader.retry().has_value());
  reader.feed("id: event-1\nretry: 500\ndata: \n\n");
  CHECK(reader.lastEventId() == "event-1");
  REQUIRE(reader.retry().has_value());
  CHECK(reader.retry()->count() == 500);
  reader.feed("retry: soon\nid: event-2\ndata: {}\n\n");
  CHECK(reader.lastEventId() == "event-2");
  CHECK(reader.retry()->count() == 500);  // a retry that is not digits is ignored
  CHECK(events.data == std::vector<std::string>{"{}"});
}

TEST_CASE("an empty priming event is not dispatched", "[mcp]") {
  Events events;
  auto reader = events.reader();
  reader.feed("id: p\ndata: \n\ndata:\n\n");
  reader.finish();
  CHECK(events.data.empty());
  CHECK(events.oversize.empty());
}

TEST_CASE("an event over the cap is reported by its head and tail, not kept", "[mcp]") {
  Events events;
  auto reader = events.reader(64);
  const std::string big =
      R"({"jsonrpc":"2.0","result":{"text":")" + std::string(500, 'x') + R"("},"id":9})";
  reader.feed("data: " + big.substr(0, 100));
  reader.feed(big.substr(100) + "\n\n");
  reader.feed("data: {\"small\":1}\n\n");
  REQUIRE(events.oversize.size() == 1);
  CHECK(events.oversize[0] == big.size());
  CHECK(events.head == big.substr(0, events.head.size()));
  CHECK(events.tail.find(R"("id":9})") != std::string::npos);
  CHECK(events.data == std::vector<std::string>{"{\"small\":1}"});
}

TEST_CASE("many data lines that together pass the cap are one oversize event", "[mcp]") {
  Events events;
  auto reader = events.reader(100);
  for (int i = 0; i < 50; ++i) reader.feed("data: 0123456789\n");
  reader.feed("\n");
  REQUIRE(events.oversize.size() == 1);
  CHECK(events.oversize[0] == 50 * 10 + 49);
  CHECK(events.data.empty());
}
