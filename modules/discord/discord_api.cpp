#include "discord_api.h"

#include <Poco/Exception.h>
#include <Poco/JSON/Array.h>
#include <Poco/JSON/Object.h>
#include <Poco/JSON/Parser.h>
#include <Poco/URI.h>

#include <cctype>
#include <sstream>

namespace gantry::discord {
namespace {

using Poco::JSON::Array;
using Poco::JSON::Object;

std::string stringify(const Object& object) {
  std::ostringstream out;
  object.stringify(out);
  return out.str();
}

Object::Ptr parseObject(std::string_view text) {
  Poco::JSON::Parser parser;
  Poco::Dynamic::Var value = parser.parse(std::string(text));
  if (value.type() != typeid(Object::Ptr)) return nullptr;
  return value.extract<Object::Ptr>();
}

Object::Ptr asObject(const Poco::Dynamic::Var& value) {
  if (value.isEmpty() || value.type() != typeid(Object::Ptr)) return nullptr;
  return value.extract<Object::Ptr>();
}

// A member as a string ("" when absent or null); numbers are converted.
std::string text(const Object::Ptr& object, const std::string& key) {
  if (!object || !object->has(key) || object->isNull(key)) return {};
  return object->get(key).convert<std::string>();
}

bool flag(const Object::Ptr& object, const std::string& key) {
  if (!object || !object->has(key) || object->isNull(key)) return false;
  return object->get(key).convert<bool>();
}

Object::Ptr payload(Op op, const Poco::Dynamic::Var& data) {
  Object::Ptr object = new Object(Poco::JSON_PRESERVE_KEY_ORDER);
  object->set("op", static_cast<int>(op));
  object->set("d", data);
  return object;
}

Attachment parseAttachment(const Object::Ptr& object) {
  Attachment attachment;
  attachment.url = text(object, "url");
  attachment.content_type = text(object, "content_type");
  attachment.filename = text(object, "filename");
  if (object->has("size") && !object->isNull("size")) {
    attachment.size = object->get("size").convert<std::int64_t>();
  }
  return attachment;
}

std::vector<Attachment> parseAttachments(const Object::Ptr& message) {
  std::vector<Attachment> out;
  Array::Ptr list = message->getArray("attachments");
  if (!list) return out;
  for (std::size_t i = 0; i < list->size(); ++i) {
    Object::Ptr item = list->getObject(static_cast<unsigned>(i));
    if (item) out.push_back(parseAttachment(item));
  }
  return out;
}

bool isSnowflake(std::string_view id) {
  if (id.empty() || id.size() > 20) return false;
  for (char c : id) {
    if (!std::isdigit(static_cast<unsigned char>(c))) return false;
  }
  return true;
}

Object::Ptr noMentions() {
  Object::Ptr allowed = new Object;
  allowed->set("parse", Array());
  return allowed;
}

}  // namespace

Result<Frame> parseFrame(std::string_view text_in) {
  try {
    Object::Ptr object = parseObject(text_in);
    if (!object || !object->has("op")) return Status::error("discord: gateway frame has no op");
    Frame frame;
    frame.op = object->get("op").convert<int>();
    if (object->has("s") && !object->isNull("s")) {
      frame.seq = object->get("s").convert<std::int64_t>();
    }
    frame.type = text(object, "t");
    if (object->has("d")) frame.data = object->get("d");
    return frame;
  } catch (const Poco::Exception& e) {
    return Status::error("discord: malformed gateway frame: " + e.displayText());
  }
}

std::string heartbeatPayload(std::optional<std::int64_t> seq) {
  Poco::Dynamic::Var data;  // empty renders as null
  if (seq) data = *seq;
  return stringify(*payload(Op::kHeartbeat, data));
}

std::string identifyPayload(const std::string& token, int intents) {
  Object::Ptr properties = new Object(Poco::JSON_PRESERVE_KEY_ORDER);
  properties->set("os", "linux");
  properties->set("browser", "gantry");
  properties->set("device", "gantry");
  Object::Ptr data = new Object(Poco::JSON_PRESERVE_KEY_ORDER);
  data->set("token", token);
  data->set("intents", intents);
  data->set("properties", properties);
  return stringify(*payload(Op::kIdentify, data));
}

std::string resumePayload(const std::string& token, const std::string& session_id,
                          std::int64_t seq) {
  Object::Ptr data = new Object(Poco::JSON_PRESERVE_KEY_ORDER);
  data->set("token", token);
  data->set("session_id", session_id);
  data->set("seq", seq);
  return stringify(*payload(Op::kResume, data));
}

Result<std::int64_t> helloInterval(const Frame& frame) {
  Object::Ptr data = asObject(frame.data);
  std::string value = text(data, "heartbeat_interval");
  try {
    std::int64_t interval = value.empty() ? 0 : std::stoll(value);
    if (interval > 0) return interval;
  } catch (const std::exception&) {
  }
  return Status::error("discord: Hello without a positive heartbeat_interval");
}

Result<ReadyInfo> parseReady(const Frame& frame) {
  Object::Ptr data = asObject(frame.data);
  ReadyInfo info;
  info.session_id = text(data, "session_id");
  info.resume_gateway_url = text(data, "resume_gateway_url");
  if (data) info.user_id = text(data->getObject("user"), "id");
  if (info.session_id.empty()) return Status::error("discord: READY without session_id");
  return info;
}

bool invalidSessionResumable(const Frame& frame) {
  if (frame.data.isEmpty() || !frame.data.isBoolean()) return false;
  return frame.data.convert<bool>();
}

Result<DiscordMessage> parseMessage(const Poco::Dynamic::Var& data) {
  try {
    Object::Ptr object = asObject(data);
    if (!object) return Status::error("discord: MESSAGE_CREATE without an object");
    Object::Ptr author = object->getObject("author");
    DiscordMessage message;
    message.id = text(object, "id");
    message.channel_id = text(object, "channel_id");
    message.guild_id = text(object, "guild_id");
    message.author_id = text(author, "id");
    message.author_name = text(author, "global_name");
    if (message.author_name.empty()) message.author_name = text(author, "username");
    message.author_bot = flag(author, "bot");
    message.content = text(object, "content");
    message.attachments = parseAttachments(object);
    if (message.id.empty() || message.channel_id.empty() || message.author_id.empty()) {
      return Status::error("discord: MESSAGE_CREATE without id, channel_id or author.id");
    }
    return message;
  } catch (const Poco::Exception& e) {
    return Status::error("discord: malformed MESSAGE_CREATE: " + e.displayText());
  }
}

Admission admit(const DiscordMessage& message, const std::set<std::string>& allowed,
                const std::string& self_id) {
  if (!message.guild_id.empty()) return Admission::kNotDirect;
  if (!self_id.empty() && message.author_id == self_id) return Admission::kSelf;
  if (message.author_bot) return Admission::kBot;
  if (allowed.count(message.author_id) == 0) return Admission::kStranger;
  return Admission::kAccept;
}

bool isImage(const Attachment& attachment) {
  return attachment.content_type.rfind("image/", 0) == 0 && !attachment.url.empty();
}

InboundMessage toInbound(const DiscordMessage& message) {
  InboundMessage inbound;
  inbound.chat_id = message.channel_id;
  inbound.sender_id = message.author_id;
  inbound.sender_name = message.author_name;
  inbound.text = message.content;
  inbound.message_id = message.id;
  for (const Attachment& attachment : message.attachments) {
    if (isImage(attachment)) inbound.images.push_back(Image{"", "", attachment.url});
  }
  return inbound;
}

Result<std::set<std::string>> parseAllowedUsers(std::string_view text_in) {
  std::set<std::string> ids;
  std::string current;
  auto flush = [&]() -> bool {
    if (current.empty()) return true;
    if (!isSnowflake(current)) return false;
    ids.insert(current);
    current.clear();
    return true;
  };
  for (char c : text_in) {
    if (c == ',' || std::isspace(static_cast<unsigned char>(c))) {
      if (!flush()) break;
    } else {
      current.push_back(c);
    }
  }
  if (!flush()) {
    return Status::error("discord: DISCORD_ALLOWED_USERS: '" + current +
                         "' is not a user id (numeric snowflake)");
  }
  if (ids.empty()) return Status::error("discord: DISCORD_ALLOWED_USERS is empty");
  return ids;
}

CloseAction closeAction(int code) {
  switch (code) {
    case 4004:
    case 4010:
    case 4011:
    case 4012:
    case 4013:
    case 4014: return CloseAction::kFatal;
    case 4007:  // invalid seq
    case 4009:  // session timed out
    case 1000:  // a normal close ends the session
    case 1001: return CloseAction::kIdentify;
    default: return CloseAction::kResume;
  }
}

std::string fatalCloseMessage(int code) {
  switch (code) {
    case 4004:
      return "discord: gateway closed 4004 authentication failed (check DISCORD_BOT_TOKEN)";
    case 4010: return "discord: gateway closed 4010 invalid shard";
    case 4011: return "discord: gateway closed 4011 sharding required";
    case 4012:
      return "discord: gateway closed 4012 invalid API version (check DISCORD_GATEWAY_URL)";
    case 4013: return "discord: gateway closed 4013 invalid intents";
    case 4014:
      return "discord: gateway closed 4014 disallowed intents (enable the MESSAGE CONTENT intent "
             "for the bot in the Discord developer portal)";
    default: return "discord: gateway closed " + std::to_string(code);
  }
}

std::string connectUrl(std::string_view base) {
  Poco::URI uri{std::string(base)};
  uri.setRawQuery("v=10&encoding=json");
  if (uri.getPath().empty()) uri.setPath("/");
  return uri.toString();
}

Result<std::string> parseGatewayBot(std::string_view body) {
  try {
    std::string url = text(parseObject(body), "url");
    if (url.empty()) return Status::error("discord: GET /gateway/bot: reply has no url");
    return url;
  } catch (const Poco::Exception& e) {
    return Status::error("discord: GET /gateway/bot: malformed reply: " + e.displayText());
  }
}

std::string messageBody(std::string_view text_in) {
  Object body(Poco::JSON_PRESERVE_KEY_ORDER);
  body.set("content", std::string(text_in));
  body.set("allowed_mentions", noMentions());
  return stringify(body);
}

std::string photoEmbedBody(const std::string& url, std::string_view caption) {
  Object::Ptr image = new Object;
  image->set("url", url);
  Object::Ptr embed = new Object;
  embed->set("image", image);
  Array::Ptr embeds = new Array;
  embeds->add(embed);
  Object body(Poco::JSON_PRESERVE_KEY_ORDER);
  body.set("content", std::string(caption));
  body.set("embeds", embeds);
  body.set("allowed_mentions", noMentions());
  return stringify(body);
}

std::string photoUploadPayload(const std::string& filename, std::string_view caption) {
  Object::Ptr attachment = new Object(Poco::JSON_PRESERVE_KEY_ORDER);
  attachment->set("id", 0);
  attachment->set("filename", filename);
  Array::Ptr attachments = new Array;
  attachments->add(attachment);
  Object body(Poco::JSON_PRESERVE_KEY_ORDER);
  body.set("content", std::string(caption));
  body.set("attachments", attachments);
  body.set("allowed_mentions", noMentions());
  return stringify(body);
}

Result<std::string> parseMessageId(std::string_view body) {
  try {
    std::string id = text(parseObject(body), "id");
    if (id.empty()) return Status::error("discord: message reply has no id");
    return id;
  } catch (const Poco::Exception& e) {
    return Status::error("discord: malformed message reply: " + e.displayText());
  }
}

std::optional<RateLimitBody> parseRateLimit(std::string_view body) {
  try {
    Object::Ptr object = parseObject(body);
    if (!object || !object->has("retry_after")) return std::nullopt;
    RateLimitBody limit;
    limit.retry_after = object->get("retry_after").convert<double>();
    limit.global = flag(object, "global");
    return limit;
  } catch (const Poco::Exception&) {
    return std::nullopt;
  }
}

std::string errorMessage(std::string_view body) {
  try {
    return text(parseObject(body), "message");
  } catch (const Poco::Exception&) {
    return {};
  }
}

}  // namespace gantry::discord
