// Request validation: what a real chat-completions server refuses with HTTP 400.

#include <set>

#include "Poco/JSON/Parser.h"
#include "fake_openai_internal.h"

namespace gantry::testing {
namespace {

using Poco::JSON::Array;
using Poco::JSON::Object;

const std::set<std::string> kRoles = {"system", "developer", "user", "assistant", "tool"};

std::string textOf(const Object::Ptr& message) {
  Poco::Dynamic::Var content = message->get("content");
  if (content.isString()) return content.toString();
  std::string text;
  Array::Ptr parts = message->getArray("content");
  for (std::size_t i = 0; parts && i < parts->size(); ++i) {
    Object::Ptr part = parts->getObject(i);
    if (part && part->optValue<std::string>("type", "") == "text") {
      text += part->optValue<std::string>("text", "");
    }
  }
  return text;
}

std::string unanswered(const std::set<std::string>& ids) {
  std::string list;
  for (const auto& id : ids) list += (list.empty() ? "" : ", ") + id;
  return "An assistant message with 'tool_calls' must be followed by tool messages answering "
         "each 'tool_call_id'. Unanswered tool_call_ids: " +
         list;
}

// Tracks the tool calls of the last assistant message until each is answered.
std::optional<RequestError> checkToolPairing(const Array::Ptr& messages) {
  std::set<std::string> pending;
  for (std::size_t i = 0; i < messages->size(); ++i) {
    Object::Ptr message = messages->getObject(i);
    std::string role = message->optValue<std::string>("role", "");
    std::string param = "messages.[" + std::to_string(i) + "]";
    if (role == "tool") {
      std::string id = message->optValue<std::string>("tool_call_id", "");
      if (!pending.erase(id)) {
        return RequestError{
            "Invalid parameter: messages with role 'tool' must answer a "
            "preceding message with 'tool_calls' (tool_call_id \"" +
                id + "\").",
            param + ".role"};
      }
      continue;
    }
    if (!pending.empty()) return RequestError{unanswered(pending), param};
    Array::Ptr calls = role == "assistant" ? message->getArray("tool_calls") : nullptr;
    for (std::size_t c = 0; calls && c < calls->size(); ++c) {
      Object::Ptr call = calls->getObject(c);
      if (!call || call->optValue<std::string>("id", "").empty()) {
        return RequestError{"Missing required parameter: 'id' of a tool call.",
                            param + ".tool_calls"};
      }
      pending.insert(call->getValue<std::string>("id"));
    }
  }
  if (!pending.empty()) return RequestError{unanswered(pending), "messages"};
  return std::nullopt;
}

std::optional<RequestError> checkMessages(const Array::Ptr& messages, ParsedRequest* out) {
  if (!messages || messages->size() == 0) {
    return RequestError{"Missing required parameter: 'messages'.", "messages"};
  }
  for (std::size_t i = 0; i < messages->size(); ++i) {
    Object::Ptr message = messages->getObject(i);
    std::string param = "messages.[" + std::to_string(i) + "]";
    if (!message) {
      return RequestError{"Invalid type for '" + param + "': expected an object.", param};
    }
    std::string role = message->optValue<std::string>("role", "");
    if (!kRoles.count(role)) {
      std::string message_text = "Invalid value for '" + param + ".role': '";
      message_text += role;
      message_text += "'.";
      return RequestError{message_text, param + ".role"};
    }
    if (role == "user") out->last_user_text = textOf(message);
  }
  return checkToolPairing(messages);
}

}  // namespace

std::optional<RequestError> validateRequest(const std::string& body, ParsedRequest* out) {
  Object::Ptr request;
  try {
    Poco::JSON::Parser parser;
    request = parser.parse(body).extract<Object::Ptr>();
  } catch (const Poco::Exception&) {
    return RequestError{
        "We could not parse the JSON body of your request. The body must be "
        "a JSON object.",
        ""};
  }
  out->body_size = body.size();
  out->model = request->optValue<std::string>("model", "");
  if (out->model.empty()) return RequestError{"You must provide a model parameter.", "model"};
  out->stream = request->optValue<bool>("stream", false);
  if (Object::Ptr options = request->getObject("stream_options")) {
    out->include_usage = options->optValue<bool>("include_usage", false);
  }
  try {
    return checkMessages(request->getArray("messages"), out);
  } catch (const Poco::Exception& e) {
    return RequestError{"Invalid message: " + e.displayText(), "messages"};
  }
}

}  // namespace gantry::testing
