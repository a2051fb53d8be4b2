#include "tools/arguments.h"

#include <Poco/Exception.h>
#include <Poco/JSON/Parser.h>

#include <charconv>

namespace gantry::tools {

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
