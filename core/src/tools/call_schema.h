#pragma once
/// The response schema of a grammar-constrained retry (DESIGN 4.1): after an unknown tool
/// name the next provider call answers with one call to a candidate, its arguments shaped
/// by that candidate's parameter schema, or in text (kAnswerInText). Pure.

#include <string>
#include <vector>

#include "gantry/message.h"

namespace gantry::tools {

/// Rewrites a tool's parameter schema (JSON text) into the subset OpenAI's strict structured
/// outputs accept: every object lists all its properties in `required` (the optional ones
/// become nullable) and has `additionalProperties: false`; `oneOf` becomes `anyOf`; keywords
/// strict mode rejects (default, examples, title, minLength, maxLength, allOf, not, …) and
/// unsupported string formats are dropped. Text that is not an object schema (empty, not
/// JSON, no "type":"object" or "properties") gives an object with no properties. Deterministic: the
/// same input gives the same bytes.
std::string strictSchema(const std::string& parameters_json);

/// The JSON Schema (text) of the retry's reply: an object with `name` (a string enum of the
/// candidates' names and kAnswerInText) and `arguments` (an anyOf of each candidate's strict
/// parameter schema, described by its tool, and of {"text": string} for kAnswerInText), both
/// required, nothing else. The provider wraps it as {"type":"json_schema","json_schema":
/// {"name":"tool_call","schema":<this>,"strict":true}}. A call reply has the shape
/// parsePrintedCall reads; the provider turns a kAnswerInText reply into plain text.
std::string toolCallSchema(const std::vector<ToolSchema>& candidates);

/// Arguments (JSON object text) without the properties whose value is null, in nested
/// objects too (array items are left as they are): in a reply to the strict schema a null
/// stands for an optional parameter left out. Text that is not a JSON object is returned as
/// it is.
std::string withoutNulls(const std::string& arguments_json);

}  // namespace gantry::tools
