#include "request_writer.h"

#include <catch2/catch.hpp>
#include <random>
#include <string>

#include "rapidjson/document.h"

using gantry::openai::RequestWriter;

namespace {

std::string written(const std::string& text) {
  rapidjson::StringBuffer out;
  RequestWriter w(out);
  w.Text(text);
  return {out.GetString(), out.GetSize()};
}

std::string writtenByRapidJson(const std::string& text) {
  rapidjson::StringBuffer out;
  rapidjson::Writer<rapidjson::StringBuffer> w(out);
  w.String(text.data(), static_cast<rapidjson::SizeType>(text.size()));
  return {out.GetString(), out.GetSize()};
}

std::string parsed(const std::string& json) {
  rapidjson::Document doc;
  doc.Parse(json.data(), json.size());
  REQUIRE_FALSE(doc.HasParseError());
  REQUIRE(doc.IsString());
  return {doc.GetString(), doc.GetStringLength()};
}

/// Text shaped like a prompt (runs of letters broken by newlines, quotes and backslashes) and
/// every byte value, at lengths either side of the 16-byte blocks.
std::string sample(std::mt19937& rng, std::size_t length) {
  static const std::string kAlphabet = "abc xyz\n\n\"\\\t\r\x01\x1a\x1f\x7f\xc3\xa9/";
  std::string text;
  for (std::size_t i = 0; i < length; ++i) {
    text += rng() % 3 == 0 ? static_cast<char>(rng() % 256) : kAlphabet[rng() % kAlphabet.size()];
  }
  return text;
}

}  // namespace

TEST_CASE("text is escaped as RapidJSON's writer escapes it", "[openai]") {
  CHECK(written("") == "\"\"");
  CHECK(written("line one\nsaid \"hi\" \\ back\ttab\r\b\f") ==
        R"("line one\nsaid \"hi\" \\ back\ttab\r\b\f")");
  CHECK(written(std::string("nul\0x", 5)) == R"("nul\u0000x")");
  CHECK(written("\x1f and \x7f and caf\xc3\xa9 and a/b") ==
        "\"\\u001F and \x7f and caf\xc3\xa9 and a/b\"");
  std::mt19937 rng(7);
  for (std::size_t length = 0; length < 70; ++length) {
    for (int round = 0; round < 20; ++round) {
      std::string text = sample(rng, length);
      INFO("length " << length << " round " << round);
      CHECK(written(text) == writtenByRapidJson(text));
    }
  }
}

TEST_CASE("every byte value survives a round trip through a JSON parser", "[openai]") {
  std::string all;
  for (int c = 0; c < 256; ++c) all += static_cast<char>(c);
  for (std::size_t from = 0; from < 32; ++from) {  // each byte at every offset in a block
    std::string text = std::string(from, 'a') + all + std::string(from, 'z');
    CHECK(parsed(written(text)) == text);
  }
}

TEST_CASE("Text values sit in objects and arrays like String values", "[openai]") {
  rapidjson::StringBuffer out;
  RequestWriter w(out);
  w.StartObject();
  w.Key("a");
  w.Text("x\ny");
  w.Key("b");
  w.StartArray();
  w.Text("1");
  w.Text("2");
  w.EndArray();
  w.EndObject();
  CHECK(std::string(out.GetString(), out.GetSize()) == R"({"a":"x\ny","b":["1","2"]})");
}

// Text is escaped in chunks of 4,096 bytes into room for six bytes a byte.
TEST_CASE("text longer than a chunk is escaped whole, escapes at its edges included", "[openai]") {
  std::mt19937 rng(11);
  for (std::size_t length : {4080, 4095, 4096, 4097, 4111, 8191, 8192, 8193, 20000}) {
    std::string text = sample(rng, length);
    INFO("length " << length);
    CHECK(written(text) == writtenByRapidJson(text));
  }
  const std::string controls(10000, '\x01');  // every byte the longest escape
  CHECK(written(controls) == writtenByRapidJson(controls));
  std::string quotes_at_edges(8200, 'a');
  for (std::size_t at : {0, 4095, 4096, 8191, 8192, 8199}) quotes_at_edges[at] = '"';
  CHECK(written(quotes_at_edges) == writtenByRapidJson(quotes_at_edges));
}

TEST_CASE("Raw values sit in objects and arrays like RawValue values", "[openai]") {
  auto open = [](auto& w) {  // {"tools":[{"parameters":
    w.StartObject();
    w.Key("tools");
    w.StartArray();
    w.StartObject();
    w.Key("parameters");
  };
  const std::string schema = R"({"type":"object","properties":{"q":{"type":"string"}}})";
  rapidjson::StringBuffer ours_out, theirs_out;
  RequestWriter ours(ours_out);
  rapidjson::Writer<rapidjson::StringBuffer> theirs(theirs_out);
  open(ours);
  open(theirs);
  ours.Raw(schema, rapidjson::kObjectType);
  theirs.RawValue(schema.data(), schema.size(), rapidjson::kObjectType);
  ours.EndObject();
  theirs.EndObject();
  ours.Raw("[]", rapidjson::kArrayType);  // an element after an element: the comma
  theirs.RawValue("[]", 2, rapidjson::kArrayType);
  ours.EndArray();
  theirs.EndArray();
  ours.Key("n");
  theirs.Key("n");
  ours.Raw("1", rapidjson::kNumberType);
  theirs.RawValue("1", 1, rapidjson::kNumberType);
  ours.EndObject();
  theirs.EndObject();
  REQUIRE(ours.IsComplete());
  CHECK(std::string(ours_out.GetString(), ours_out.GetSize()) ==
        std::string(theirs_out.GetString(), theirs_out.GetSize()));
  CHECK(std::string(ours_out.GetString(), ours_out.GetSize()) ==
        R"({"tools":[{"parameters":)" + schema + R"(},[]],"n":1})");
}
