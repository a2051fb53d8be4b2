// JSON-RPC framing (mcp/jsonrpc.h): the LineSplitter gives the same lines for any chunking,
// and every line goes through parse, responseId and findResponseId as the transports do.

#include <string>
#include <vector>

#include "fuzz_support.h"
#include "mcp/jsonrpc.h"

namespace {

namespace jsonrpc = gantry::mcp::jsonrpc;

template <typename Feed>
std::vector<std::string> split(Feed&& feed) {
  std::vector<std::string> lines;
  jsonrpc::LineSplitter splitter(
      128, [&](std::string_view line) { lines.emplace_back(line); },
      [&](std::string_view head, std::string_view tail, std::size_t length) {
        lines.push_back("oversize " + std::to_string(length) + ":" + std::string(head) + "|" +
                        std::string(tail));
      });
  feed(splitter);
  return lines;
}

void decode(std::string_view line) {
  auto messages = jsonrpc::parse(line);
  if (messages.isOk()) {
    for (const auto& message : messages.value()) (void)message.intId();
  }
  (void)jsonrpc::responseId(line);
  (void)jsonrpc::findResponseId(line);
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const auto bytes = gantry::fuzz::asText(data, size);
  const auto whole = split([&](auto& splitter) { splitter.feed(bytes); });
  const auto pieces = split([&](auto& splitter) {
    gantry::fuzz::feedInPieces(bytes, [&](std::string_view piece) { splitter.feed(piece); });
  });
  gantry::fuzz::require(whole == pieces, "LineSplitter gives the same lines for any chunking");
  decode(bytes);
  for (const auto& line : whole) decode(line);
  return 0;
}
