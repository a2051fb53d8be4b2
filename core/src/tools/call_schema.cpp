#include "tools/call_schema.h"

#include <Poco/Exception.h>
#include <Poco/JSON/Array.h>
#include <Poco/JSON/Object.h>
#include <Poco/JSON/ParseHandler.h>
#include <Poco/JSON/Parser.h>
#include <Poco/JSON/Stringifier.h>

#include <algorithm>
#include <set>
#include <sstream>

#include "gantry/provider.h"
#include "gantry/text/split.h"

namespace gantry::tools {
namespace {

using Poco::Dynamic::Var;
using Poco::JSON::Array;
using Poco::JSON::Object;

// Keywords strict mode accepts, copied as they are ("format" only with a supported value).
const std::set<std::string> kPlainKeywords = {"type",
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
                                              "exclusiveMinimum",
                                              "exclusiveMaximum"};
const std::set<std::string> kFormats = {"date-time", "time", "date", "duration", "email",
                                        "hostname",  "ipv4", "ipv6", "uuid"};
constexpr std::size_t kDescriptionChars = 300;

Object::Ptr newObject() { return new Object(Poco::JSON_PRESERVE_KEY_ORDER); }

Object::Ptr parse(const std::string& text) {
  try {
    Poco::JSON::Parser parser(new Poco::JSON::ParseHandler(true));
    auto value = parser.parse(text);
    if (value.type() == typeid(Object::Ptr)) return value.extract<Object::Ptr>();
  } catch (const Poco::Exception&) {
  }
  return nullptr;
}

std::string compact(const Object::Ptr& object) {
  std::ostringstream out;
  Poco::JSON::Stringifier::condense(object, out);
  return out.str();
}

bool isObject(const Var& value) { return value.type() == typeid(Object::Ptr); }
bool isArray(const Var& value) { return value.type() == typeid(Array::Ptr); }

bool isObjectSchema(const Object::Ptr& in) {
  if (in->has("properties")) return true;
  auto type = in->get("type");
  return type.isString() && type.extract<std::string>() == "object";
}

Object::Ptr strictNode(const Object::Ptr& in);

Var strictValue(const Var& value) {
  return isObject(value) ? Var(strictNode(value.extract<Object::Ptr>())) : value;
}

Array::Ptr strictList(const Var& value) {
  Array::Ptr out = new Array;
  if (!isArray(value)) return out;
  for (const auto& item : *value.extract<Array::Ptr>()) {
    if (isObject(item)) out->add(strictNode(item.extract<Object::Ptr>()));
  }
  return out;
}

Object::Ptr strictMap(const Var& value) {
  Object::Ptr out = newObject();
  if (!isObject(value)) return out;
  auto in = value.extract<Object::Ptr>();
  for (const auto& key : in->getNames()) out->set(key, strictValue(in->get(key)));
  return out;
}

Object::Ptr anyOfNull(const Object::Ptr& schema) {
  Object::Ptr null_type = newObject();
  null_type->set("type", "null");
  Array::Ptr any = new Array;
  any->add(schema);
  any->add(null_type);
  Object::Ptr out = newObject();
  out->set("anyOf", any);
  return out;
}

bool isNullType(const Var& type) { return type.isString() && type.toString() == "null"; }

// The optional property becomes nullable: "null" joins its type (and its enum), or the
// schema is wrapped as anyOf [schema, {"type":"null"}] when it has no type.
Object::Ptr nullable(Object::Ptr schema) {
  if (!schema->has("type")) return anyOfNull(schema);
  auto type = schema->get("type");
  Array::Ptr types = new Array;
  if (isArray(type)) {
    for (const auto& t : *type.extract<Array::Ptr>()) types->add(t);
  } else {
    types->add(type);
  }
  if (std::any_of(types->begin(), types->end(), isNullType)) return schema;
  types->add("null");
  schema->set("type", types);
  if (isArray(schema->get("enum"))) schema->getArray("enum")->add(Var());
  return schema;
}

void strictProperties(const Object::Ptr& in, Object::Ptr out) {
  std::set<std::string> required;
  if (auto list = in->getArray("required"); !list.isNull()) {
    for (const auto& name : *list) required.insert(name.toString());
  }
  Object::Ptr properties = newObject();
  Array::Ptr all = new Array;
  if (auto given = in->getObject("properties"); !given.isNull()) {
    for (const auto& name : given->getNames()) {
      auto value = given->get(name);
      Object::Ptr property =
          isObject(value) ? strictNode(value.extract<Object::Ptr>()) : newObject();
      properties->set(name, required.count(name) ? property : nullable(property));
      all->add(name);
    }
  }
  out->set("properties", properties);
  out->set("required", all);
  out->set("additionalProperties", false);
}

void copyKeyword(const std::string& key, const Var& value, Object::Ptr out) {
  if (kPlainKeywords.count(key)) {
    if (key != "format" || kFormats.count(value.toString())) out->set(key, value);
  } else if (key == "items") {
    out->set(key, strictValue(value));
  } else if (key == "anyOf" || key == "oneOf") {
    out->set("anyOf", strictList(value));
  } else if (key == "$defs" || key == "definitions") {
    out->set(key, strictMap(value));
  }
}

Object::Ptr strictNode(const Object::Ptr& in) {
  Object::Ptr out = newObject();
  for (const auto& key : in->getNames()) copyKeyword(key, in->get(key), out);
  if (isObjectSchema(in)) {
    out->set("type", "object");
    strictProperties(in, out);
  }
  return out;
}

Object::Ptr emptyParameters() {
  Object::Ptr out = newObject();
  out->set("type", "object");
  strictProperties(newObject(), out);
  return out;
}

// Tool parameters are an object schema; anything else (missing, not JSON) takes none.
Object::Ptr strictParameters(const std::string& parameters_json) {
  auto parsed = parse(parameters_json);
  return parsed.isNull() || !isObjectSchema(parsed) ? emptyParameters() : strictNode(parsed);
}

Object::Ptr argumentsOf(const ToolSchema& tool) {
  Object::Ptr schema = strictParameters(tool.parameters_json);
  std::string description =
      tool.description.substr(0, text::utf8Prefix(tool.description, kDescriptionChars));
  schema->set("description",
              "Arguments for " + tool.name + (description.empty() ? "" : ": " + description));
  return schema;
}

// The arguments of kAnswerInText: the reply itself.
Object::Ptr textAnswer() {
  Object::Ptr text = newObject();
  text->set("type", "string");
  text->set("description", "The reply to the user");
  Object::Ptr properties = newObject();
  properties->set("text", text);
  Array::Ptr required = new Array;
  required->add("text");
  Object::Ptr schema = newObject();
  schema->set("type", "object");
  schema->set("description", std::string("Arguments for ") + std::string(kAnswerInText) +
                                 ": answer in text instead of calling a tool");
  schema->set("properties", properties);
  schema->set("required", required);
  schema->set("additionalProperties", false);
  return schema;
}

void dropNulls(Object::Ptr object) {
  for (const auto& key : object->getNames()) {
    auto value = object->get(key);
    if (value.isEmpty()) {
      object->remove(key);
    } else if (isObject(value)) {
      dropNulls(value.extract<Object::Ptr>());
    }
  }
}

}  // namespace

std::string withoutNulls(const std::string& arguments_json) {
  auto parsed = parse(arguments_json);
  if (parsed.isNull()) return arguments_json;
  dropNulls(parsed);
  return compact(parsed);
}

std::string strictSchema(const std::string& parameters_json) {
  return compact(strictParameters(parameters_json));
}

std::string toolCallSchema(const std::vector<ToolSchema>& candidates) {
  Array::Ptr names = new Array;
  Array::Ptr branches = new Array;
  for (const auto& tool : candidates) {
    names->add(tool.name);
    branches->add(argumentsOf(tool));
  }
  // Always a way out: a retry that must call some tool would run one nobody asked for.
  names->add(std::string(kAnswerInText));
  branches->add(textAnswer());
  Object::Ptr name = newObject();
  name->set("type", "string");
  name->set("enum", names);
  Object::Ptr arguments = newObject();
  arguments->set("anyOf", branches);
  Object::Ptr properties = newObject();
  properties->set("name", name);
  properties->set("arguments", arguments);
  Array::Ptr required = new Array;
  required->add("name");
  required->add("arguments");
  Object::Ptr schema = newObject();
  schema->set("type", "object");
  schema->set("properties", properties);
  schema->set("required", required);
  schema->set("additionalProperties", false);
  return compact(schema);
}

}  // namespace gantry::tools
