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

/// The arguments in the one form the owner approves and the tool receives: a JSON object,
/// keys sorted (by bytes) at every depth, no whitespace; blank text counts as {}. Invalid
/// JSON, anything but an object, and a key given twice in one object (which would let what
/// the owner reads differ from what a tool keeps) are errors the model can correct.
Result<std::string> canonicalArguments(const std::string& json);

/// True when arguments hold a secret's `[redacted:NAME]` marker: the model only ever sees a
/// secret as its marker, and written into a real file or request the marker would replace the
/// value, so such a call is never run.
bool holdsRedactionMarker(const std::string& arguments);

/// Canonical arguments for a person to read: one line per top-level key, `key: value` (the
/// value as JSON), a value longer than max_value_chars cut with how much was left out
/// (0: nothing is cut). Control and bidirectional-override characters are shown escaped.
std::string describeArguments(const std::string& canonical, std::size_t max_value_chars);

/// text with control characters and Unicode bidirectional controls written as \uXXXX, so
/// what a person reads is what the bytes say.
std::string escapeInvisible(const std::string& text);

/// The string member `key`, or nullopt when it is missing or not a string.
std::optional<std::string> stringArgument(const Poco::JSON::Object& args, const std::string& key);

/// The integer member `key`, also accepted as a string of digits (some models quote
/// numbers); nullopt when missing or not an integer.
std::optional<std::int64_t> integerArgument(const Poco::JSON::Object& args, const std::string& key);

}  // namespace gantry::tools
