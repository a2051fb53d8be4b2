#include "mcp/jsonrpc.h"

#include <catch2/catch.hpp>

#include "mcp/tool_result.h"

using namespace gantry::mcp;
using Kind = jsonrpc::Message::Kind;

TEST_CASE("requests and notifications serialise as one JSON-RPC line", "[mcp]") {
  Poco::JSON::Object::Ptr params = new Poco::JSON::Object;
  params->set("text", "a\nb");
  CHECK(jsonrpc::request(7, "tools/call", params) ==
        R"({"id":7,"jsonrpc":"2.0","method":"tools/call","params":{"text":"a\nb"}})");
  CHECK(jsonrpc::notification("notifications/initialized", nullptr) ==
        R"({"jsonrpc":"2.0","method":"notifications/initialized"})");
  CHECK(jsonrpc::errorResponse(3, -32601, "no") ==
        R"({"error":{"code":-32601,"message":"no"},"id":3,"jsonrpc":"2.0"})");
}

TEST_CASE("parsed messages are classified by their members", "[mcp]") {
  auto parsed = jsonrpc::parse(R"({"jsonrpc":"2.0","id":4,"result":{"tools":[]}})");
  REQUIRE(parsed.isOk());
  CHECK(parsed.value()[0].kind == Kind::kResult);
  CHECK(parsed.value()[0].intId() == 4);
  parsed = jsonrpc::parse(R"({"jsonrpc":"2.0","id":"x","method":"ping"})");
  REQUIRE(parsed.isOk());
  CHECK(parsed.value()[0].kind == Kind::kRequest);
  CHECK_FALSE(parsed.value()[0].intId().has_value());
  parsed = jsonrpc::parse(R"({"jsonrpc":"2.0","method":"notifications/tools/list_changed"})");
  REQUIRE(parsed.isOk());
  CHECK(parsed.value()[0].kind == Kind::kNotification);
  parsed = jsonrpc::parse(R"({"jsonrpc":"2.0","id":5,"error":{"code":-1,"message":"m"}})");
  REQUIRE(parsed.isOk());
  CHECK(parsed.value()[0].kind == Kind::kError);
  CHECK(parsed.value()[0].error_message == "m");
}

TEST_CASE("text that is not a JSON-RPC message is refused", "[mcp]") {
  CHECK_FALSE(jsonrpc::parse("hello").isOk());
  CHECK_FALSE(jsonrpc::parse(R"({"id":1,"result":{}})").isOk());
  CHECK_FALSE(jsonrpc::parse("[1,2]").isOk());
}

TEST_CASE("the line splitter caps line length and reports the oversize line", "[mcp]") {
  std::vector<std::string> lines;
  std::size_t oversize = 0;
  std::string tail;
  jsonrpc::LineSplitter splitter(
      16, [&](std::string_view line) { lines.emplace_back(line); },
      [&](std::string_view, std::string_view t, std::size_t length) {
        oversize = length;
        tail = t;
      });
  splitter.feed("one\r\ntw");
  splitter.feed("o\n");
  splitter.feed(std::string(40, 'x') + "\"id\":9}\nthree\n");
  CHECK(lines == std::vector<std::string>{"one", "two", "three"});
  CHECK(oversize == 47);
  CHECK(jsonrpc::findResponseId(tail) == 9);
}

TEST_CASE("the response id is found outside escaped strings", "[mcp]") {
  CHECK(jsonrpc::findResponseId(R"(xx\"id\":5 more"},"jsonrpc":"2.0","id":12})") == 12);
  CHECK_FALSE(jsonrpc::findResponseId(R"(only \"id\":5 inside)").has_value());
}

// Found by the jsonrpc fuzz target: an id past the int64 range threw std::out_of_range out
// of the transport's reader.
TEST_CASE("an id too large for an int64 in an oversize response is not an id", "[mcp]") {
  CHECK_FALSE(jsonrpc::findResponseId(R"({"id":77777777777777777770,"result":)").has_value());
  CHECK(jsonrpc::findResponseId(R"({"id":-99999999999999999999,"x":{"id":4}},"id":12})") == 12);
}

TEST_CASE("a response id is read from the top level only", "[mcp]") {
  CHECK(jsonrpc::responseId(R"({"result":{"id":7,"x":"\"id\":8"},"jsonrpc":"2.0","id":3})") == 3);
  CHECK(jsonrpc::responseId(R"( {"jsonrpc":"2.0","id":-4,"error":{"code":1,"message":"m"}})") ==
        -4);
  CHECK_FALSE(jsonrpc::responseId(R"({"jsonrpc":"2.0","id":5,"method":"ping"})").has_value());
  CHECK_FALSE(jsonrpc::responseId(R"({"jsonrpc":"2.0","id":"abc","result":{}})").has_value());
  CHECK_FALSE(jsonrpc::responseId(R"([{"jsonrpc":"2.0","id":1,"result":{}}])").has_value());
  CHECK_FALSE(jsonrpc::responseId(R"({"jsonrpc":"2.0","id":1,"result":{"open")").has_value());
  CHECK_FALSE(jsonrpc::responseId("").has_value());
}

namespace {
Poco::JSON::Object::Ptr parseObject(const std::string& text) {
  auto parsed = jsonrpc::parse(R"({"jsonrpc":"2.0","id":1,"result":)" + text + "}");
  REQUIRE(parsed.isOk());
  return parsed.value()[0].result;
}
}  // namespace

TEST_CASE("tool results join text and summarise binary content", "[mcp]") {
  auto result = toToolResult(parseObject(
      R"({"content":[{"type":"text","text":"a"},{"type":"image","mimeType":"image/png","data":"AAAAAA=="},)"
      R"({"type":"text","text":"b"},{"type":"resource_link","uri":"file:///x"},)"
      R"({"type":"resource","resource":{"uri":"file:///y","text":"inner"}}]})"));
  CHECK(result.ok);
  CHECK(result.text == "a\n[image image/png, 4 bytes]\nb\n[resource file:///x]\ninner");
}

TEST_CASE("an image a tool returns goes to the model as an image beside its description", "[mcp]") {
  auto result = toToolResult(
      parseObject(R"({"content":[{"type":"text","text":"a chart"},)"
                  R"({"type":"image","mimeType":"image/png","data":"iVBORw0KGgo="}]})"));
  CHECK(result.text == "a chart\n[image image/png, 8 bytes]");
  REQUIRE(result.images.size() == 1);
  CHECK(result.images[0].mime_type == "image/png");
  CHECK(result.images[0].data_base64 == "iVBORw0KGgo=");
}

TEST_CASE("images past the cap, of other types or not plain base64 are only described", "[mcp]") {
  const std::string big(kToolImageMaxBytes / 3 * 4 + 4, 'A');  // just over the cap, decoded
  const std::string half(kToolImageMaxBytes / 2 / 3 * 4, 'A');
  auto result = toToolResult(
      parseObject(R"({"content":[{"type":"image","mimeType":"image/png","data":")" + half +
                  R"("},)"
                  R"({"type":"image","mimeType":"image/jpeg","data":")" +
                  half +
                  R"("},)"
                  R"({"type":"image","mimeType":"image/png","data":")" +
                  big +
                  R"("},)"
                  R"({"type":"image","mimeType":"image/svg+xml","data":"PHN2Zz4="},)"
                  R"({"type":"image","mimeType":"image/png","data":"\"},"},)"
                  R"({"type":"audio","mimeType":"audio/wav","data":"AAAA"}]})"));
  REQUIRE(result.images.size() == 2);  // the two halves fit together; the next does not
  CHECK(result.text.find("[image image/png, " + std::to_string(kToolImageMaxBytes + 2) +
                         " bytes, not shown: over the 1 MiB for a result's images]") !=
        std::string::npos);
  CHECK(result.text.find("[image image/svg+xml, 5 bytes]") != std::string::npos);
  CHECK(result.text.find("[audio audio/wav, 3 bytes]") != std::string::npos);
}

TEST_CASE("structured content is used when a result has no text", "[mcp]") {
  auto result = toToolResult(parseObject(R"({"content":[],"structuredContent":{"b":1,"a":2}})"));
  CHECK(result.ok);
  CHECK(result.text == R"({"a":2,"b":1})");
}

TEST_CASE("isError results are tool errors", "[mcp]") {
  auto result =
      toToolResult(parseObject(R"({"content":[{"type":"text","text":"no"}],"isError":true})"));
  CHECK_FALSE(result.ok);
  CHECK(result.text == "no");
}
