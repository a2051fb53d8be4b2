#pragma once
/// Tool arguments as a model sends them (raw JSON text), parsed once for every tool source,
/// with the typed readers that accept what models commonly write.

#include <Poco/JSON/Object.h>

#include <cstdint>
#include <optional>
#include <string>

#include "gantry/status.h"

namespace gantry::tools {

/// The arguments as a JSON object; blank text counts as {}. Anything else is an error the
/// model can correct, saying what was wrong.
Result<Poco::JSON::Object::Ptr> parseArguments(const std::string& json);

/// The string member `key`, or nullopt when it is missing or not a string.
std::optional<std::string> stringArgument(const Poco::JSON::Object& args, const std::string& key);

/// The integer member `key`, also accepted as a string of digits (some models quote
/// numbers); nullopt when missing or not an integer.
std::optional<std::int64_t> integerArgument(const Poco::JSON::Object& args, const std::string& key);

}  // namespace gantry::tools
