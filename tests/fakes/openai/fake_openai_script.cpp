// Script lines: one scripted reply per JSON object.

#include <set>
#include <stdexcept>

#include "Poco/JSON/Parser.h"
#include "fake_openai_server.h"

namespace gantry::testing {
namespace {

using Poco::JSON::Object;

const std::set<std::string> kKeys = {
    "content",       "reasoning", "reasoning_field", "tool_calls", "status", "retry_after",
    "error_message", "body",      "delay_ms",        "stall_ms",   "drop",   "close",
    "usage",         "model",     "cut_mid_call"};
const std::set<std::string> kCallKeys = {"id", "name", "arguments", "thought_signature"};

void checkKeys(const Object& object, const std::set<std::string>& known, const char* what) {
  for (const auto& [key, value] : object) {
    if (!known.count(key)) {
      throw std::invalid_argument(std::string("unknown ") + what + " key \"" + key + "\"");
    }
  }
}

ScriptedReply::Call parseCall(const Object::Ptr& object) {
  if (!object) throw std::invalid_argument("tool_calls entries must be objects");
  checkKeys(*object, kCallKeys, "tool call");
  ScriptedReply::Call call;
  call.id = object->optValue<std::string>("id", "");
  call.name = object->optValue<std::string>("name", "");
  call.arguments = object->optValue<std::string>("arguments", "{}");
  call.thought_signature = object->optValue<std::string>("thought_signature", "");
  if (call.name.empty()) throw std::invalid_argument("a tool call needs a name");
  return call;
}

void parseUsage(const Object::Ptr& usage, ScriptedReply* reply) {
  if (!usage) return;
  if (usage->has("prompt_tokens")) reply->prompt_tokens = usage->getValue<int64_t>("prompt_tokens");
  if (usage->has("completion_tokens")) {
    reply->completion_tokens = usage->getValue<int64_t>("completion_tokens");
  }
  if (usage->has("cached_tokens")) reply->cached_tokens = usage->getValue<int64_t>("cached_tokens");
}

ScriptedReply parseObject(const Object::Ptr& object) {
  checkKeys(*object, kKeys, "script");
  ScriptedReply reply;
  reply.content = object->optValue<std::string>("content", "");
  if (object->has("model")) reply.model = object->getValue<std::string>("model");
  reply.reasoning = object->optValue<std::string>("reasoning", "");
  reply.reasoning_field = object->optValue<std::string>("reasoning_field", "reasoning_content");
  if (reply.reasoning_field != "reasoning_content" && reply.reasoning_field != "reasoning") {
    throw std::invalid_argument("reasoning_field must be reasoning_content or reasoning");
  }
  if (auto calls = object->getArray("tool_calls")) {
    for (std::size_t i = 0; i < calls->size(); ++i)
      reply.tool_calls.push_back(parseCall(calls->getObject(i)));
  }
  reply.status = object->optValue<int>("status", 200);
  reply.retry_after = object->optValue<int>("retry_after", -1);
  reply.error_message = object->optValue<std::string>("error_message", "");
  if (object->has("body")) reply.body = object->getValue<std::string>("body");
  reply.delay_ms = object->optValue<int>("delay_ms", 0);
  reply.stall_ms = object->optValue<int>("stall_ms", 0);
  reply.drop = object->optValue<bool>("drop", false);
  reply.cut_mid_call = object->optValue<bool>("cut_mid_call", false);
  reply.close = object->optValue<bool>("close", false);
  parseUsage(object->getObject("usage"), &reply);
  return reply;
}

}  // namespace

ScriptedReply parseScriptLine(std::string_view line) {
  Object::Ptr object;
  try {
    Poco::JSON::Parser parser;
    object = parser.parse(std::string(line)).extract<Object::Ptr>();
    return parseObject(object);
  } catch (const std::invalid_argument&) {
    throw;
  } catch (const Poco::Exception& e) {
    throw std::invalid_argument("not a JSON object with the script's types: " + e.displayText());
  }
}

}  // namespace gantry::testing
