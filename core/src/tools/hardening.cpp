#include "tools/hardening.h"

#include <Poco/Exception.h>
#include <Poco/JSON/Object.h>
#include <Poco/JSON/Parser.h>
#include <Poco/JSON/Stringifier.h>

#include <sstream>

#include "gantry/text/trim.h"

namespace gantry::tools {
namespace {

using text::trim;

Poco::JSON::Object::Ptr parseObject(std::string_view text) {
  try {
    Poco::JSON::Parser parser;
    auto value = parser.parse(std::string(text));
    if (value.type() == typeid(Poco::JSON::Object::Ptr)) {
      return value.extract<Poco::JSON::Object::Ptr>();
    }
  } catch (const Poco::Exception&) {
  }
  return nullptr;
}

std::string compact(const Poco::JSON::Object::Ptr& object) {
  std::ostringstream out;
  Poco::JSON::Stringifier::condense(object, out);
  return out.str();
}

/// Strips one wrapper: <tool_call>…</tool_call> or a ``` fence with an optional language.
std::string_view unwrap(std::string_view text) {
  constexpr std::string_view kOpen = "<tool_call>", kClose = "</tool_call>";
  if (text.substr(0, kOpen.size()) == kOpen && text.size() >= kOpen.size() + kClose.size() &&
      text.substr(text.size() - kClose.size()) == kClose) {
    return trim(text.substr(kOpen.size(), text.size() - kOpen.size() - kClose.size()));
  }
  if (text.size() >= 6 && text.substr(0, 3) == "```" && text.substr(text.size() - 3) == "```") {
    auto body = text.substr(3, text.size() - 6);
    const auto newline = body.find('\n');
    const auto language = trim(body.substr(0, newline));
    if (newline == std::string_view::npos) return trim(body);
    if (language.empty() || language == "json" || language == "tool_call") {
      return trim(body.substr(newline + 1));
    }
  }
  return text;
}

std::optional<std::string> argumentsOf(const Poco::JSON::Object::Ptr& call) {
  for (const char* key : {"arguments", "parameters"}) {
    if (!call->has(key)) continue;
    if (auto object = call->getObject(key); !object.isNull()) return compact(object);
    const auto value = call->get(key);
    if (value.isString()) {
      auto inner = parseObject(value.extract<std::string>());
      if (!inner.isNull()) return compact(inner);
    }
    return std::nullopt;
  }
  return std::nullopt;
}

}  // namespace

std::optional<ToolCall> parsePrintedCall(std::string_view text) {
  auto body = unwrap(trim(text));
  if (body.empty() || body.front() != '{' || body.back() != '}') return std::nullopt;
  auto call = parseObject(body);
  if (call.isNull()) return std::nullopt;
  if (auto function = call->getObject("function"); !function.isNull()) call = function;
  if (!call->has("name") || !call->get("name").isString()) return std::nullopt;
  auto arguments = argumentsOf(call);
  if (!arguments) return std::nullopt;
  ToolCall out;
  out.name = call->getValue<std::string>("name");
  out.arguments = *arguments;
  if (out.name.empty()) return std::nullopt;
  return out;
}

bool validJsonObject(std::string_view text) { return !parseObject(text).isNull(); }

}  // namespace gantry::tools
