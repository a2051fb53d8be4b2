#include "tools/call_schema.h"

#include <Poco/JSON/Array.h>
#include <Poco/JSON/Object.h>
#include <Poco/JSON/Parser.h>

#include <catch2/catch.hpp>
#include <set>

using gantry::ToolSchema;
using gantry::tools::strictSchema;
using gantry::tools::toolCallSchema;
using gantry::tools::withoutNulls;
using Poco::JSON::Array;
using Poco::JSON::Object;

namespace {

const std::set<std::string> kStrictKeywords = {"type",
                                               "description",
                                               "enum",
                                               "const",
                                               "$ref",
                                               "pattern",
                                               "format",
                                               "minimum",
                                               "maximum",
                                               "minItems",
                                               "maxItems",
                                               "multipleOf",
                                               "anyOf",
                                               "items",
                                               "$defs",
                                               "required",
                                               "properties",
                                               "additionalProperties",
                                               "exclusiveMinimum",
                                               "exclusiveMaximum"};

Object::Ptr parse(const std::string& text) {
  return Poco::JSON::Parser().parse(text).extract<Object::Ptr>();
}

// What OpenAI's strict mode refuses in one schema node and everything below it.
void collectViolations(const Object::Ptr& node, const std::string& path,
                       std::vector<std::string>* out) {
  for (const auto& key : node->getNames()) {
    if (!kStrictKeywords.count(key))
      out->push_back(std::string(path).append(": keyword ").append(key));
  }
  if (node->has("properties")) {
    if (!node->has("additionalProperties") || node->getValue<bool>("additionalProperties")) {
      out->push_back(path + ": additionalProperties is not false");
    }
    std::set<std::string> required;
    if (auto list = node->getArray("required"); !list.isNull()) {
      for (const auto& name : *list) required.insert(name.toString());
    }
    auto properties = node->getObject("properties");
    for (const auto& name : properties->getNames()) {
      if (!required.count(name))
        out->push_back(std::string(path).append(": ").append(name).append(" is not required"));
      collectViolations(properties->getObject(name), std::string(path).append(".").append(name),
                        out);
    }
  } else if (node->has("type") && node->get("type").toString() == "object") {
    out->push_back(path + ": an object without properties");
  }
  if (auto items = node->getObject("items"); !items.isNull()) {
    collectViolations(items, path + "[]", out);
  }
  if (auto any = node->getArray("anyOf"); !any.isNull()) {
    for (unsigned i = 0; i < any->size(); ++i) {
      collectViolations(any->getObject(i), path + "|" + std::to_string(i), out);
    }
  }
}

std::vector<std::string> strictViolations(const std::string& schema) {
  auto root = parse(schema);
  std::vector<std::string> out;
  if (root->getValue<std::string>("type") != "object") out.push_back("root is not an object");
  if (root->has("anyOf")) out.push_back("root is an anyOf");
  collectViolations(root, "$", &out);
  return out;
}

const char* kStoreParameters =
    R"({"$schema":"http://json-schema.org/draft-07/schema#","type":"object","title":"store",)"
    R"("properties":{"kind":{"type":"string","enum":["fact","person"],"default":"fact"},)"
    R"("subject":{"type":"string","minLength":1},"content":{"type":"string"},)"
    R"("tags":{"type":"array","items":{"type":"string"},"uniqueItems":true},)"
    R"("extra":{"type":"object"},"when":{"type":"string","format":"uri"},)"
    R"("where":{"oneOf":[{"type":"string"},{"type":"object","properties":{"lat":{"type":"number"}}}]}},)"
    R"("required":["subject","content"]})";

}  // namespace

TEST_CASE("a tool's parameter schema is rewritten into what strict mode accepts", "[tools]") {
  auto schema = strictSchema(kStoreParameters);
  INFO(schema);
  CHECK(strictViolations(schema).empty());
  auto root = parse(schema);
  auto properties = root->getObject("properties");
  // Required properties keep their type; optional ones become nullable, enums included.
  CHECK(properties->getObject("subject")->get("type").toString() == "string");
  auto kind = properties->getObject("kind");
  CHECK(kind->getArray("type")->size() == 2);
  CHECK(kind->getArray("enum")->size() == 3);
  CHECK(kind->getArray("enum")->isNull(2));
  CHECK_FALSE(properties->getObject("when")->has("format"));
  CHECK(properties->getObject("where")->has("anyOf"));
}

TEST_CASE("the strict rewrite keeps the order of properties and is deterministic", "[tools]") {
  auto schema = strictSchema(kStoreParameters);
  CHECK(schema == strictSchema(kStoreParameters));
  auto kind = schema.find("\"kind\"");
  auto subject = schema.find("\"subject\"");
  auto content = schema.find("\"content\"");
  CHECK(kind < subject);
  CHECK(subject < content);
}

TEST_CASE("missing or malformed parameters become an object without properties", "[tools]") {
  for (const char* text : {"", "not json", "[1]", "{}"}) {
    INFO(text);
    auto schema = strictSchema(text);
    CHECK(parse(schema)->getObject("properties")->size() == 0);
  }
}

TEST_CASE("the retry schema names the candidates and carries their parameters", "[tools]") {
  std::vector<ToolSchema> candidates = {
      {"memory_store", "Store one memory.", kStoreParameters},
      {"memory_recall", "Recall memories.",
       R"({"type":"object","properties":{"query":{"type":"string"}},"required":["query"]})"}};
  auto schema = toolCallSchema(candidates);
  INFO(schema);
  CHECK(strictViolations(schema).empty());
  auto properties = parse(schema)->getObject("properties");
  auto names = properties->getObject("name")->getArray("enum");
  REQUIRE(names->size() == 3);
  CHECK(names->getElement<std::string>(0) == "memory_store");
  auto branches = properties->getObject("arguments")->getArray("anyOf");
  REQUIRE(branches->size() == 3);
  CHECK(branches->getObject(1)->getObject("properties")->has("query"));
  CHECK(branches->getObject(1)->getValue<std::string>("description") ==
        "Arguments for memory_recall: Recall memories.");
}

TEST_CASE("the retry schema always offers to answer in text instead of calling a tool", "[tools]") {
  auto schema = toolCallSchema({{"garmin__get_hrv", "", ""}});
  CHECK(schema == R"({"type":"object","properties":{"name":{"type":"string",)"
                  R"("enum":["garmin__get_hrv","answer_in_text"]},)"
                  R"("arguments":{"anyOf":[{"type":"object","properties":{},"required":[],)"
                  R"("additionalProperties":false,"description":"Arguments for garmin__get_hrv"},)"
                  R"({"type":"object","description":"Arguments for answer_in_text: answer in text )"
                  R"(instead of calling a tool","properties":{"text":{"type":"string",)"
                  R"("description":"The reply to the user"}},"required":["text"],)"
                  R"("additionalProperties":false}]}},)"
                  R"("required":["name","arguments"],"additionalProperties":false})");
  CHECK(strictViolations(schema).empty());
}

TEST_CASE("nulls in a constrained reply's arguments stand for parameters left out", "[tools]") {
  CHECK(withoutNulls(R"({"id":null,"query":"tea","where":{"lat":null,"lon":2}})") ==
        R"({"query":"tea","where":{"lon":2}})");
  CHECK(withoutNulls(R"({"tags":[null,"a"]})") == R"({"tags":[null,"a"]})");
  CHECK(withoutNulls("not json") == "not json");
}
