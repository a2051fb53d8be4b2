#pragma once
/// RequestWriter: RapidJSON's writer with faster ways to write long text values and JSON
/// already encoded (module-internal). A chat request is mostly message text, and message text
/// has a newline every few dozen bytes: after each character it escapes, RapidJSON's writer
/// goes back to copying one byte at a time until its input is 16-byte aligned again
/// (bench_host under callgrind: the encoder took 1.36M of a turn's 8.2M instructions with it,
/// 0.97M with Text()). Its RawValue() copies one byte at a time too: the 50 tool schemas
/// bench_host publishes (28 KB, encoded once) cost 0.23M instructions a request with it.

#include <string_view>

#include "rapidjson/stringbuffer.h"
#include "rapidjson/writer.h"

namespace gantry::openai {

class RequestWriter : public rapidjson::Writer<rapidjson::StringBuffer> {
 public:
  explicit RequestWriter(rapidjson::StringBuffer& out) : Writer(out) {}

  /// A string value, as String() writes it: `"` and `\` escaped, control characters as \b \f
  /// \n \r \t or \u00XX, every other byte as it is (no encoding validation).
  bool Text(std::string_view text);

  /// A value already encoded as JSON of the given type, as RawValue() writes it (not checked).
  bool Raw(std::string_view json, rapidjson::Type type);
};

}  // namespace gantry::openai
