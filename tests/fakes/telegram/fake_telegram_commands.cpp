// setMyCommands and getMyCommands of the fake, as the Bot API documents them: `commands` is
// a JSON-serialized array of at most 100 BotCommand objects (command: 1-32 characters, only
// lowercase English letters, digits and underscores; description: 1-256 characters); an
// absent `commands` sets an empty list. Refusals carry the descriptions Telegram sends:
// "Bad Request: BOT_COMMAND_INVALID", "Bad Request: BOT_COMMAND_DESCRIPTION_INVALID",
// "Bad Request: can't parse BotCommand: Can't find field \"description\"". Only the
// default scope and every language are kept: the scope and language_code the channel never
// sends are refused rather than half-modelled.

#include <Poco/JSON/Array.h>
#include <Poco/JSON/Object.h>
#include <Poco/JSON/Parser.h>

#include <algorithm>
#include <sstream>

#include "fake_telegram.h"
#include "fake_telegram_internal.h"

namespace gantry::fakes {
namespace {

constexpr std::size_t kMaxCommands = 100;

std::string refuse(int* status, const std::string& what) {
  *status = 400;
  return errorJson(400, "Bad Request: " + what, 0);
}

bool validName(const std::string& name) {
  return !name.empty() && name.size() <= 32 && std::all_of(name.begin(), name.end(), [](char c) {
    return (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '_';
  });
}

/// One BotCommand, or the refusal's text in *error.
bool parseCommand(const Poco::Dynamic::Var& item, BotCommandRecord* out, std::string* error) {
  if (item.type() != typeid(Poco::JSON::Object::Ptr)) {
    *error = "can't parse BotCommand: expected an Object";
    return false;
  }
  auto object = item.extract<Poco::JSON::Object::Ptr>();
  for (const char* field : {"command", "description"}) {
    if (!object->has(field)) {
      *error = std::string("can't parse BotCommand: Can't find field \"") + field + "\"";
      return false;
    }
    if (!object->get(field).isString()) {
      *error =
          std::string("can't parse BotCommand: Field \"") + field + "\" must be of type String";
      return false;
    }
  }
  out->command = object->getValue<std::string>("command");
  out->description = object->getValue<std::string>("description");
  if (!validName(out->command)) return *error = "BOT_COMMAND_INVALID", false;
  const std::size_t chars = utf16Length(out->description);
  if (chars == 0 || chars > 256) return *error = "BOT_COMMAND_DESCRIPTION_INVALID", false;
  return true;
}

}  // namespace

std::string FakeTelegram::setMyCommands(const BotParams& params, int* status) {
  if (!params.get("scope").empty() || !params.get("language_code").empty()) {
    return refuse(status, "the fake keeps the default scope and language only");
  }
  std::vector<BotCommandRecord> commands;
  const std::string json = params.get("commands");
  if (!json.empty()) {
    Poco::Dynamic::Var parsed;
    try {
      parsed = Poco::JSON::Parser().parse(json);
    } catch (const Poco::Exception&) {
      return refuse(status, "can't parse commands JSON object");
    }
    if (parsed.type() != typeid(Poco::JSON::Array::Ptr)) {
      return refuse(status, "can't parse commands JSON object: expected an Array");
    }
    auto array = parsed.extract<Poco::JSON::Array::Ptr>();
    if (array->size() > kMaxCommands) return refuse(status, "too many commands specified");
    for (std::size_t i = 0; i < array->size(); ++i) {
      BotCommandRecord command;
      std::string error;
      if (!parseCommand(array->get(static_cast<unsigned>(i)), &command, &error)) {
        return refuse(status, error);
      }
      commands.push_back(std::move(command));
    }
  }
  std::lock_guard lock(mutex_);
  commands_ = std::move(commands);
  return "{\"ok\":true,\"result\":true}";
}

std::string FakeTelegram::getMyCommands() const {
  Poco::JSON::Array array;
  std::lock_guard lock(mutex_);
  for (const auto& c : commands_) {
    Poco::JSON::Object object(Poco::JSON_PRESERVE_KEY_ORDER);
    object.set("command", c.command);
    object.set("description", c.description);
    array.add(object);
  }
  std::ostringstream out;
  array.stringify(out);
  return "{\"ok\":true,\"result\":" + out.str() + "}";
}

std::vector<BotCommandRecord> FakeTelegram::commands() const {
  std::lock_guard lock(mutex_);
  return commands_;
}

}  // namespace gantry::fakes
