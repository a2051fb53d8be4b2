#include "api/request_body.h"

#include <Poco/JSON/Array.h>
#include <Poco/JSON/Parser.h>

#include <regex>

namespace gantry::api {
namespace {

using Poco::JSON::Object;

/// The task's context: an array of {author, content, timestamp}, nothing else.
Result<std::vector<TaskContextItem>> parseContext(const Poco::JSON::Array::Ptr& list) {
  if (!list) return Status::error("\"context\" must be an array of {author, content, timestamp}");
  std::vector<TaskContextItem> context;
  for (std::size_t i = 0; i < list->size(); ++i) {
    auto item = list->getObject(static_cast<unsigned>(i));
    if (!item) return Status::error("\"context\" items must be objects");
    TaskContextItem entry;
    for (auto [key, field] :
         {std::pair{"author", &entry.author}, std::pair{"content", &entry.content},
          std::pair{"timestamp", &entry.timestamp}}) {
      if (item->has(key) && !item->isNull(key)) *field = item->get(key).convert<std::string>();
    }
    for (const auto& [key, v] : *item) {
      if (key != "author" && key != "content" && key != "timestamp") {
        return Status::error("unknown context field \"" + key + "\"");
      }
    }
    context.push_back(std::move(entry));
  }
  return context;
}

Status parseIdAndContent(const Object& o, TaskRequest* task) {
  auto id = textField(o, "id", true);
  if (!id.isOk()) return id.status();
  static const std::regex kId("[A-Za-z0-9_.:-]{1,128}");
  if (!std::regex_match(id.value(), kId)) {
    return Status::error("\"id\" must be 1 to 128 of A-Z a-z 0-9 _ . : -");
  }
  task->id = id.value();
  auto content = textField(o, "content", true);
  if (!content.isOk()) return content.status();
  if (content->empty()) return Status::error("\"content\" is empty");
  task->content = content.value();
  return Status::ok();
}

/// Where the caller says the task came from (the Veskslop body): strings, kept as context.
Status parseSource(const Object& o, TaskSource* source) {
  for (auto [key, field] :
       {std::pair{"guildId", &source->guild_id}, std::pair{"channelId", &source->channel_id},
        std::pair{"author", &source->author}}) {
    auto value = textField(o, key, false);
    if (!value.isOk()) return value.status();
    *field = value.value();
  }
  return Status::ok();
}

Status parseDelivery(const Object& o, TaskRequest* task) {
  auto chat = textField(o, "chat", false);
  if (!chat.isOk()) return chat.status();
  task->chat = chat.value();
  auto reply = textField(o, "reply", false);
  if (!reply.isOk()) return reply.status();
  if (!reply->empty() && reply.value() != "none" && reply.value() != "chat") {
    return Status::error("\"reply\" must be \"chat\" or \"none\"");
  }
  task->reply_to_chat = reply.value() != "none";
  if (o.has("sensitive")) {
    auto sensitive = o.get("sensitive");
    if (!sensitive.isBoolean()) return Status::error("\"sensitive\" must be true or false");
    task->sensitive = sensitive.convert<bool>();
  }
  return Status::ok();
}

}  // namespace

Result<Object::Ptr> parseObject(const std::string& body, const std::set<std::string>& allowed) {
  try {
    Poco::JSON::Parser parser;
    auto value = parser.parse(body);
    auto object = value.extract<Object::Ptr>();
    for (const auto& [key, v] : *object) {
      if (!allowed.count(key)) return Status::error("unknown field \"" + key + "\"");
    }
    return object;
  } catch (const Poco::BadCastException&) {
    return Status::error("the body is not a JSON object");
  } catch (const Poco::Exception& e) {
    return Status::error("the body is not valid JSON: " + e.message());
  }
}

Result<std::string> textField(const Object& object, const std::string& key, bool required) {
  if (!object.has(key) || object.isNull(key)) {
    if (required) return Status::error("\"" + key + "\" is required");
    return std::string();
  }
  auto value = object.get(key);
  if (!value.isString()) return Status::error("\"" + key + "\" must be a string");
  return value.convert<std::string>();
}

Result<TaskRequest> parseTask(const std::string& body) {
  auto object = parseObject(body, {"id", "content", "context", "sensitive", "chat", "reply",
                                   "guildId", "channelId", "author"});
  if (!object.isOk()) return object.status();
  const Object& o = *object.value();
  TaskRequest task;
  task.body_digest = bodyDigest(body);
  for (Status s :
       {parseIdAndContent(o, &task), parseSource(o, &task.source), parseDelivery(o, &task)}) {
    if (!s.isOk()) return s;
  }
  if (o.has("context")) {
    auto context = parseContext(o.getArray("context"));
    if (!context.isOk()) return context.status();
    task.context = std::move(context.value());
  }
  return task;
}

}  // namespace gantry::api
