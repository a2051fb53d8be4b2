#include "tools/arguments.h"

#include <Poco/Exception.h>
#include <Poco/JSON/Parser.h>
#include <rapidjson/document.h>
#include <rapidjson/error/en.h>
#include <rapidjson/stringbuffer.h>
#include <rapidjson/writer.h>

#include <algorithm>
#include <charconv>
#include <cstdio>
#include <set>
#include <vector>

#include "gantry/text/split.h"

namespace gantry::tools {
namespace {

using Value = rapidjson::Value;
using Writer = rapidjson::Writer<rapidjson::StringBuffer>;

/// The first key that appears twice in one object, at any depth; empty when none does.
std::string duplicateKey(const Value& value) {
  if (value.IsArray()) {
    for (const auto& item : value.GetArray()) {
      if (auto key = duplicateKey(item); !key.empty()) return key;
    }
  }
  if (!value.IsObject()) return {};
  std::set<std::string> seen;
  for (const auto& member : value.GetObject()) {
    std::string key(member.name.GetString(), member.name.GetStringLength());
    if (!seen.insert(key).second) return key.empty() ? "\"\"" : key;
    if (auto inner = duplicateKey(member.value); !inner.empty()) return inner;
  }
  return {};
}

void writeSorted(const Value& value, Writer& writer) {
  if (value.IsArray()) {
    writer.StartArray();
    for (const auto& item : value.GetArray()) writeSorted(item, writer);
    writer.EndArray();
    return;
  }
  if (!value.IsObject()) {
    value.Accept(writer);
    return;
  }
  std::vector<const Value::Member*> members;
  for (const auto& member : value.GetObject()) members.push_back(&member);
  std::sort(members.begin(), members.end(), [](const auto* a, const auto* b) {
    return std::string_view(a->name.GetString(), a->name.GetStringLength()) <
           std::string_view(b->name.GetString(), b->name.GetStringLength());
  });
  writer.StartObject();
  for (const auto* member : members) {
    writer.Key(member->name.GetString(), member->name.GetStringLength());
    writeSorted(member->value, writer);
  }
  writer.EndObject();
}

std::string toJson(const Value& value) {
  rapidjson::StringBuffer buffer;
  Writer writer(buffer);
  writeSorted(value, writer);
  return {buffer.GetString(), buffer.GetSize()};
}

/// The Unicode code point of the UTF-8 sequence at text[i] and its length (1 for bytes
/// that begin no valid sequence).
std::pair<char32_t, std::size_t> codePointAt(const std::string& text, std::size_t i) {
  const auto byte = static_cast<unsigned char>(text[i]);
  const std::size_t length = byte < 0x80       ? 1
                             : byte >> 5 == 6  ? 2
                             : byte >> 4 == 14 ? 3
                             : byte >> 3 == 30 ? 4
                                               : 1;
  if (length == 1 || i + length > text.size()) return {byte, 1};
  char32_t point = byte & (0x7F >> length);
  for (std::size_t k = 1; k < length; ++k) {
    point = (point << 6) | (static_cast<unsigned char>(text[i + k]) & 0x3F);
  }
  return {point, length};
}

bool invisible(char32_t point) {
  return point < 0x20 || point == 0x7F || point == 0x061C || point == 0x200E || point == 0x200F ||
         (point >= 0x202A && point <= 0x202E) || (point >= 0x2066 && point <= 0x2069);
}

}  // namespace

Result<std::string> canonicalArguments(const std::string& json) {
  if (json.find_first_not_of(" \t\r\n") == std::string::npos) return std::string("{}");
  rapidjson::Document document;
  document.Parse(json.data(), json.size());
  if (document.HasParseError()) {
    return Status::error(std::string("the arguments are not valid JSON (") +
                         rapidjson::GetParseError_En(document.GetParseError()) +
                         "); send a JSON object matching the tool's parameters");
  }
  if (!document.IsObject()) {
    return Status::error("the arguments must be a JSON object matching the tool's parameters");
  }
  if (auto key = duplicateKey(document); !key.empty()) {
    return Status::error("the arguments give the key \"" + key +
                         "\" more than once; send each key once");
  }
  return toJson(document);
}

std::string escapeInvisible(const std::string& text) {
  std::string out;
  out.reserve(text.size());
  for (std::size_t i = 0; i < text.size();) {
    auto [point, length] = codePointAt(text, i);
    if (invisible(point)) {
      char escaped[8];
      std::snprintf(escaped, sizeof escaped, "\\u%04x", static_cast<unsigned>(point));
      out += escaped;
    } else {
      out.append(text, i, length);
    }
    i += length;
  }
  return out;
}

bool holdsRedactionMarker(const std::string& arguments) {
  return arguments.find("[redacted:") != std::string::npos;
}

std::string describeArguments(const std::string& canonical, std::size_t max_value_chars) {
  rapidjson::Document document;
  document.Parse(canonical.data(), canonical.size());
  if (document.HasParseError() || !document.IsObject()) return escapeInvisible(canonical);
  if (document.ObjectEmpty()) return "(no arguments)";
  const Value& root = document;
  std::string out;
  for (const auto& member : root.GetObject()) {
    std::string value = toJson(member.value);
    std::string shown = value;
    if (max_value_chars > 0 && value.size() > max_value_chars) {
      const std::size_t keep = text::utf8Prefix(value, max_value_chars);
      shown = value.substr(0, keep) + "… (" + std::to_string(value.size() - keep) + " more chars)";
    }
    if (!out.empty()) out += '\n';
    out += escapeInvisible(std::string(member.name.GetString(), member.name.GetStringLength())) +
           ": " + escapeInvisible(shown);
  }
  return out;
}

Result<Poco::JSON::Object::Ptr> parseArguments(const std::string& json) {
  const auto start = json.find_first_not_of(" \t\r\n");
  if (start == std::string::npos) return Poco::JSON::Object::Ptr(new Poco::JSON::Object);
  // Checked before parsing: Poco's parser reports a top-level scalar with an obscure message.
  if (json[start] != '{') {
    return Status::error("the arguments must be a JSON object matching the tool's parameters");
  }
  try {
    Poco::JSON::Parser parser;
    return parser.parse(json).extract<Poco::JSON::Object::Ptr>();
  } catch (const Poco::Exception& e) {
    return Status::error("the arguments are not valid JSON (" + e.message() +
                         "); send a JSON object matching the tool's parameters");
  }
}

std::optional<std::string> stringArgument(const Poco::JSON::Object& args, const std::string& key) {
  if (!args.has(key)) return std::nullopt;
  const auto value = args.get(key);
  if (!value.isString()) return std::nullopt;
  return value.toString();
}

std::optional<std::int64_t> integerArgument(const Poco::JSON::Object& args,
                                            const std::string& key) {
  if (!args.has(key)) return std::nullopt;
  const auto value = args.get(key);
  try {
    if (value.isInteger()) return value.convert<std::int64_t>();
  } catch (const Poco::Exception&) {  // out of range
    return std::nullopt;
  }
  if (!value.isString()) return std::nullopt;
  const auto text = value.toString();
  std::int64_t number = 0;
  const auto [end, error] = std::from_chars(text.data(), text.data() + text.size(), number);
  if (error != std::errc() || end != text.data() + text.size()) return std::nullopt;
  return number;
}

}  // namespace gantry::tools
