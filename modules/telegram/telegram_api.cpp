#include "telegram_api.h"

#include <Poco/JSON/Array.h>
#include <Poco/JSON/Object.h>
#include <Poco/JSON/Parser.h>
#include <Poco/JSON/Stringifier.h>
#include <Poco/NumberParser.h>
#include <Poco/String.h>

#include <algorithm>
#include <sstream>

namespace gantry::telegram {
namespace {

using Poco::JSON::Array;
using Poco::JSON::Object;

std::string toJson(const Object& object) {
  std::ostringstream out;
  object.stringify(out);
  return out.str();
}

// Telegram chat ids are 64-bit integers; @usernames stay strings.
void setChatId(Object& body, std::string_view chat_id) {
  Poco::Int64 numeric = 0;
  if (Poco::NumberParser::tryParse64(std::string(chat_id), numeric)) {
    body.set("chat_id", numeric);
  } else {
    body.set("chat_id", std::string(chat_id));
  }
}

Object::Ptr parseObject(std::string_view json) {
  Poco::JSON::Parser parser;
  return parser.parse(std::string(json)).extract<Object::Ptr>();
}

Outcome classify(const Reply& reply) {
  const std::string& d = reply.description;
  switch (reply.error_code) {
    case 401: return Outcome::kUnauthorized;
    case 409: return Outcome::kConflict;
    case 429: return Outcome::kRetryAfter;
    case 400:
      if (d.find("can't parse entities") != std::string::npos) return Outcome::kEntities;
      if (d.find("message is not modified") != std::string::npos) return Outcome::kNotModified;
      return Outcome::kFailed;
    default: return reply.error_code >= 500 ? Outcome::kTransient : Outcome::kFailed;
  }
}

std::string senderName(const Object& from) {
  std::string name = from.optValue<std::string>("first_name", "");
  std::string last = from.optValue<std::string>("last_name", "");
  if (!last.empty()) name += (name.empty() ? "" : " ") + last;
  if (name.empty()) name = from.optValue<std::string>("username", "");
  return name;
}

// The largest PhotoSize by pixel count (Telegram lists sizes smallest first).
void pickPhoto(const Array& sizes, Update* update) {
  std::int64_t best_pixels = -1;
  for (std::size_t k = 0; k < sizes.size(); ++k) {
    Object::Ptr size = sizes.getObject(static_cast<unsigned>(k));
    if (!size) continue;
    std::int64_t pixels =
        size->optValue<std::int64_t>("width", 0) * size->optValue<std::int64_t>("height", 0);
    if (pixels >= best_pixels) {
      best_pixels = pixels;
      update->photo_file_id = size->optValue<std::string>("file_id", "");
      update->photo_size = size->optValue<std::int64_t>("file_size", 0);
    }
  }
}

void readMessage(const Object& message, Update* update) {
  update->has_message = true;
  Object::Ptr chat = message.getObject("chat");
  Object::Ptr from = message.getObject("from");
  if (chat) {
    update->chat_type = chat->optValue<std::string>("type", "");
    update->message.chat_id = std::to_string(chat->optValue<std::int64_t>("id", 0));
  }
  if (from) {
    update->sender_id = from->optValue<std::int64_t>("id", 0);
    update->message.sender_id = std::to_string(update->sender_id);
    update->message.sender_name = senderName(*from);
  }
  update->message.message_id = std::to_string(message.optValue<std::int64_t>("message_id", 0));
  update->message.text = message.has("text") ? message.optValue<std::string>("text", "")
                                             : message.optValue<std::string>("caption", "");
  if (Array::Ptr photo = message.getArray("photo")) pickPhoto(*photo, update);
  // A picture sent "as a file" keeps its quality; it is an image all the same.
  Object::Ptr document = message.getObject("document");
  if (update->photo_file_id.empty() && document &&
      document->optValue<std::string>("mime_type", "").rfind("image/", 0) == 0) {
    update->photo_file_id = document->optValue<std::string>("file_id", "");
    update->photo_size = document->optValue<std::int64_t>("file_size", 0);
  }
}

}  // namespace

bool parseAllowlist(std::string_view text, std::set<std::int64_t>* ids, std::string* err) {
  ids->clear();
  std::istringstream in{std::string(text)};
  for (std::string item; std::getline(in, item, ',');) {
    item = Poco::trim(item);
    if (item.empty()) continue;
    Poco::Int64 id = 0;
    if (!Poco::NumberParser::tryParse64(item, id) || id <= 0) {
      *err = "TELEGRAM_ALLOWED_USERS: \"" + item + "\" is not a numeric Telegram user id";
      return false;
    }
    ids->insert(id);
  }
  if (ids->empty()) {
    *err = "TELEGRAM_ALLOWED_USERS is empty: list the numeric user ids allowed to talk to the bot";
    return false;
  }
  return true;
}

namespace {

bool validCommandName(std::string_view name) {
  return !name.empty() && name.size() <= 32 && std::all_of(name.begin(), name.end(), [](char c) {
    return (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '_';
  });
}

/// Characters, not bytes: the limit counts what the user reads.
std::size_t codePoints(std::string_view text) {
  return static_cast<std::size_t>(std::count_if(text.begin(), text.end(), [](char c) {
    return (static_cast<unsigned char>(c) & 0xC0) != 0x80;
  }));
}

}  // namespace

std::string setMyCommandsBody(const std::vector<ChatCommand>& commands) {
  Array::Ptr menu = new Array;
  for (const ChatCommand& c : commands) {
    const std::size_t chars = codePoints(c.description);
    if (!validCommandName(c.name) || chars == 0 || chars > 256) continue;
    Object::Ptr command = new Object(Poco::JSON_PRESERVE_KEY_ORDER);
    command->set("command", c.name);
    command->set("description", c.description);
    menu->add(command);
  }
  if (menu->size() == 0) return {};
  Object body;
  body.set("commands", menu);
  return toJson(body);
}

std::string getUpdatesBody(std::int64_t offset, int timeout_seconds) {
  Object body;
  if (offset > 0) body.set("offset", static_cast<Poco::Int64>(offset));
  body.set("timeout", timeout_seconds);
  Array::Ptr allowed = new Array;
  allowed->add("message");
  allowed->add("edited_message");
  body.set("allowed_updates", allowed);
  return toJson(body);
}

std::string sendMessageBody(std::string_view chat_id, std::string_view text, bool html) {
  Object body;
  setChatId(body, chat_id);
  body.set("text", std::string(text));
  if (html) body.set("parse_mode", "HTML");
  return toJson(body);
}

std::string editMessageBody(std::string_view chat_id, std::string_view message_id,
                            std::string_view text, bool html) {
  Object body;
  setChatId(body, chat_id);
  Poco::Int64 id = 0;
  Poco::NumberParser::tryParse64(std::string(message_id), id);
  body.set("message_id", id);
  body.set("text", std::string(text));
  if (html) body.set("parse_mode", "HTML");
  return toJson(body);
}

std::string chatActionBody(std::string_view chat_id) {
  Object body;
  setChatId(body, chat_id);
  body.set("action", "typing");
  return toJson(body);
}

std::string getFileBody(std::string_view file_id) {
  Object body;
  body.set("file_id", std::string(file_id));
  return toJson(body);
}

std::string sendPhotoUrlBody(std::string_view chat_id, std::string_view url,
                             std::string_view caption, bool html) {
  Object body;
  setChatId(body, chat_id);
  body.set("photo", std::string(url));
  if (!caption.empty()) body.set("caption", std::string(caption));
  if (!caption.empty() && html) body.set("parse_mode", "HTML");
  return toJson(body);
}

Reply parseReply(int http_status, std::string_view body) {
  Reply reply;
  reply.http_status = http_status;
  try {
    Object::Ptr object = parseObject(body);
    if (object->optValue<bool>("ok", false)) {
      reply.outcome = Outcome::kOk;
      std::ostringstream out;
      Poco::JSON::Stringifier::stringify(object->get("result"), out);
      reply.result_json = out.str();
      return reply;
    }
    reply.error_code = object->optValue<int>("error_code", http_status);
    reply.description = object->optValue<std::string>("description", "");
    if (Object::Ptr parameters = object->getObject("parameters")) {
      reply.retry_after = parameters->optValue<int>("retry_after", 0);
    }
  } catch (const Poco::Exception&) {
    reply.error_code = http_status;
    reply.description = "unreadable reply";
  }
  if (reply.error_code == 0) reply.error_code = http_status;
  // A 5xx from a proxy in front of the API, or garbage, is worth another try.
  bool unreadable = reply.description == "unreadable reply" && http_status < 400;
  reply.outcome = http_status >= 500 || unreadable ? Outcome::kTransient : classify(reply);
  return reply;
}

std::string describe(std::string_view method, const Reply& reply) {
  std::string text = "telegram: " + std::string(method) + ": HTTP " +
                     std::to_string(reply.error_code ? reply.error_code : reply.http_status);
  if (!reply.description.empty()) text += " " + reply.description;
  switch (reply.outcome) {
    case Outcome::kUnauthorized: text += " (check TELEGRAM_BOT_TOKEN)"; break;
    case Outcome::kConflict:
      text +=
          " (another process is polling this bot, or a webhook is set: stop the other "
          "instance or call deleteWebhook)";
      break;
    default: break;
  }
  return text;
}

std::string messageIdOf(std::string_view result_json) {
  try {
    Poco::JSON::Parser parser;
    Poco::Dynamic::Var result = parser.parse(std::string(result_json));
    if (result.type() != typeid(Object::Ptr)) return "";
    Object::Ptr message = result.extract<Object::Ptr>();
    if (!message->has("message_id")) return "";
    return std::to_string(message->getValue<Poco::Int64>("message_id"));
  } catch (const Poco::Exception&) {
    return "";
  }
}

std::optional<FileInfo> fileInfoOf(std::string_view result_json) {
  try {
    Object::Ptr file = parseObject(result_json);
    FileInfo info{file->optValue<std::string>("file_path", ""),
                  file->optValue<std::int64_t>("file_size", 0)};
    if (info.file_path.empty()) return std::nullopt;
    return info;
  } catch (const Poco::Exception&) {
    return std::nullopt;
  }
}

bool parseUpdates(std::string_view result_json, std::vector<Update>* updates, std::string* err) {
  updates->clear();
  try {
    Poco::JSON::Parser parser;
    Array::Ptr array = parser.parse(std::string(result_json)).extract<Array::Ptr>();
    for (std::size_t k = 0; k < array->size(); ++k) {
      Object::Ptr item = array->getObject(static_cast<unsigned>(k));
      if (!item) continue;
      Update update;
      update.update_id = item->optValue<std::int64_t>("update_id", 0);
      Object::Ptr message = item->getObject("message");
      if (!message) message = item->getObject("edited_message");
      if (message) readMessage(*message, &update);
      updates->push_back(std::move(update));
    }
    return true;
  } catch (const Poco::Exception& e) {
    *err = "telegram: getUpdates: malformed result: " + e.displayText();
    return false;
  }
}

std::string mimeForPath(std::string_view file_path) {
  std::string lower = Poco::toLower(std::string(file_path));
  auto endsWith = [&](std::string_view ext) {
    return lower.size() >= ext.size() &&
           lower.compare(lower.size() - ext.size(), ext.size(), ext) == 0;
  };
  if (endsWith(".png")) return "image/png";
  if (endsWith(".webp")) return "image/webp";
  if (endsWith(".gif")) return "image/gif";
  return "image/jpeg";
}

}  // namespace gantry::telegram
