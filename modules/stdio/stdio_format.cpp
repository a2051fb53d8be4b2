#include "stdio_format.h"

#include <Poco/JSON/Object.h>
#include <Poco/JSON/Parser.h>

#include <sstream>

namespace gantry::stdio {
namespace {

std::string compact(const Poco::JSON::Object& object) {
  std::ostringstream out;
  object.stringify(out);
  return out.str();
}

}  // namespace

std::optional<std::string> parseJsonlInput(std::string_view line, std::string* err) {
  try {
    auto value = Poco::JSON::Parser().parse(std::string(line));
    auto object = value.extract<Poco::JSON::Object::Ptr>();
    if (!object->has("text") || !object->get("text").isString()) {
      *err = "stdio: each input line must be {\"text\": \"...\"}";
      return std::nullopt;
    }
    return object->getValue<std::string>("text");
  } catch (const Poco::Exception& e) {
    *err = "stdio: input line is not JSON: " + e.displayText();
  } catch (const std::exception& e) {  // BadCastException for non-objects
    *err = std::string("stdio: input line is not a JSON object: ") + e.what();
  }
  return std::nullopt;
}

std::string jsonlReply(std::string_view text) {
  Poco::JSON::Object object(Poco::JSON_PRESERVE_KEY_ORDER);
  object.set("type", "reply");
  object.set("text", std::string(text));
  return compact(object);
}

std::string jsonlEvent(const TurnEvent& event) {
  Poco::JSON::Object object(Poco::JSON_PRESERVE_KEY_ORDER);
  if (event.kind == TurnEvent::Kind::kTool) {
    object.set("type", "tool");
    object.set("name", event.name);
    object.set("ok", event.ok);
    object.set("ms", event.ms);
  } else {
    object.set("type", "error");
    object.set("message", event.message);
  }
  return compact(object);
}

}  // namespace gantry::stdio
