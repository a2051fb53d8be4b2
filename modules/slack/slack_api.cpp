#include "slack_api.h"

#include <Poco/JSON/Array.h>
#include <Poco/JSON/Object.h>
#include <Poco/JSON/Parser.h>

#include <sstream>

namespace gantry::slack {
namespace {

using Poco::JSON::Array;
using Poco::JSON::Object;

// Parses text as a JSON object; null when it is not one.
Object::Ptr parseObject(std::string_view text) {
  try {
    Poco::JSON::Parser parser;
    auto value = parser.parse(std::string(text));
    if (value.type() != typeid(Object::Ptr)) return nullptr;
    return value.extract<Object::Ptr>();
  } catch (const Poco::Exception&) {
    return nullptr;
  }
}

std::string str(const Object::Ptr& object, const std::string& name) {
  if (!object || !object->has(name)) return "";
  auto value = object->get(name);
  return value.isString() ? value.extract<std::string>() : "";
}

std::string serialize(const Object& object) {
  std::ostringstream out;
  object.stringify(out);
  return out.str();
}

Envelope::Type envelopeType(const std::string& type) {
  if (type == "hello") return Envelope::Type::kHello;
  if (type == "disconnect") return Envelope::Type::kDisconnect;
  if (type == "events_api") return Envelope::Type::kEventsApi;
  return Envelope::Type::kOther;
}

std::vector<FileRef> imageFiles(const Object::Ptr& event) {
  std::vector<FileRef> files;
  auto list = event->getArray("files");
  if (!list) return files;
  for (std::size_t i = 0; i < list->size(); ++i) {
    auto file = list->getObject(static_cast<unsigned>(i));
    if (!file || str(file, "mimetype").rfind("image/", 0) != 0) continue;
    FileRef ref{str(file, "id"), str(file, "mimetype"), str(file, "url_private"), 0};
    if (file->has("size")) ref.size = file->getValue<std::int64_t>("size");
    if (!ref.url_private.empty()) files.push_back(std::move(ref));
  }
  return files;
}

std::string senderName(const Object::Ptr& event, const std::string& user) {
  auto profile = event->getObject("user_profile");
  for (const char* field : {"display_name", "real_name", "name"}) {
    auto name = str(profile, field);
    if (!name.empty()) return name;
  }
  return user;
}

std::string dedupeKey(const Object::Ptr& payload, const Object::Ptr& event) {
  auto id = str(payload, "event_id");
  if (!id.empty()) return id;
  id = str(event, "client_msg_id");
  if (!id.empty()) return id;
  return str(event, "channel") + "/" + str(event, "ts");
}

EventDecision ignore(std::string why) {
  EventDecision decision;
  decision.why = std::move(why);
  return decision;
}

// The reason a message event is not ours to answer, or "" when it is.
std::string ignoreReason(const Object::Ptr& event, const Audience& audience) {
  if (str(event, "type") != "message") return "not a message event";
  if (str(event, "channel_type") != "im") return "not a direct message";
  auto subtype = str(event, "subtype");
  if (!str(event, "bot_id").empty() || subtype == "bot_message") return "bot message";
  if (!subtype.empty() && subtype != "file_share") return "message subtype " + subtype;
  auto user = str(event, "user");
  if (user.empty()) return "message without a user";
  if (user == audience.bot_user_id) return "our own message";
  return "";
}

bool isMemberId(std::string_view id) {
  if (id.size() < 2 || (id[0] != 'U' && id[0] != 'W')) return false;
  for (char c : id) {
    if (!((c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9'))) return false;
  }
  return true;
}

// --- markdown → mrkdwn ---------------------------------------------------------------------

void renderInline(std::string_view text, std::string& out);

// Renders text[pos..] when it starts a delimited span open…close; returns the length
// consumed, or 0 when there is no closing delimiter.
std::size_t renderSpan(std::string_view text, std::size_t pos, std::string_view open,
                       std::string_view close, std::string_view mark, std::string& out) {
  if (text.substr(pos, open.size()) != open) return 0;
  auto start = pos + open.size();
  auto end = text.find(close, start);
  if (end == std::string_view::npos || end == start || text[start] == ' ') return 0;
  out += mark;
  renderInline(text.substr(start, end - start), out);
  out += mark;
  return end + close.size() - pos;
}

std::size_t renderCode(std::string_view text, std::size_t pos, std::string& out) {
  auto end = text.find('`', pos + 1);
  if (end == std::string_view::npos) return 0;
  out += '`';
  out += escapeText(text.substr(pos + 1, end - pos - 1));
  out += '`';
  return end + 1 - pos;
}

std::size_t renderLink(std::string_view text, std::size_t pos, std::string& out) {
  auto mid = text.find("](", pos);
  if (mid == std::string_view::npos) return 0;
  auto end = text.find(')', mid + 2);
  if (end == std::string_view::npos) return 0;
  auto label = text.substr(pos + 1, mid - pos - 1);
  auto url = text.substr(mid + 2, end - mid - 2);
  if (url.empty() || url.find(' ') != std::string_view::npos) return 0;
  out += '<' + escapeText(url) + '|' + escapeText(label) + '>';
  return end + 1 - pos;
}

std::size_t renderAt(std::string_view text, std::size_t pos, std::string& out) {
  switch (text[pos]) {
    case '`': return renderCode(text, pos, out);
    case '[': return renderLink(text, pos, out);
    case '~': return renderSpan(text, pos, "~~", "~~", "~", out);
    case '_': return renderSpan(text, pos, "__", "__", "*", out);
    case '*': {
      auto used = renderSpan(text, pos, "**", "**", "*", out);
      return used ? used : renderSpan(text, pos, "*", "*", "_", out);
    }
    default: return 0;
  }
}

void renderInline(std::string_view text, std::string& out) {
  std::size_t pos = 0;
  while (pos < text.size()) {
    auto used = renderAt(text, pos, out);
    if (used == 0) {
      out += escapeText(text.substr(pos, 1));
      used = 1;
    }
    pos += used;
  }
}

std::string_view stripPrefix(std::string_view line, std::size_t count) {
  auto rest = line.substr(count);
  while (!rest.empty() && rest.front() == ' ') rest.remove_prefix(1);
  return rest;
}

// A markdown heading's text, or nullopt when line is no heading.
std::optional<std::string_view> headingText(std::string_view line) {
  std::size_t level = 0;
  while (level < line.size() && line[level] == '#') ++level;
  if (level == 0 || level > 6 || level >= line.size() || line[level] != ' ') return std::nullopt;
  return stripPrefix(line, level);
}

void renderLine(std::string_view line, std::string& out) {
  auto indent = line.find_first_not_of(' ');
  if (indent == std::string_view::npos) {
    out += line;
    return;
  }
  auto body = line.substr(indent);
  out += line.substr(0, indent);
  if (auto heading = headingText(body)) {
    out += '*';
    renderInline(*heading, out);
    out += '*';
  } else if (body.size() > 1 && (body[0] == '-' || body[0] == '*' || body[0] == '+') &&
             body[1] == ' ') {
    out += "• ";
    renderInline(stripPrefix(body, 1), out);
  } else if (body[0] == '>') {
    out += "> ";
    renderInline(stripPrefix(body, 1), out);
  } else {
    renderInline(body, out);
  }
}

bool isFence(std::string_view line) {
  auto start = line.find_first_not_of(' ');
  return start != std::string_view::npos && line.substr(start, 3) == "```";
}

}  // namespace

Result<Envelope> parseEnvelope(std::string_view frame) {
  auto object = parseObject(frame);
  if (!object) return Status::error("slack: socket frame is not a JSON object");
  Envelope envelope;
  envelope.type = envelopeType(str(object, "type"));
  envelope.envelope_id = str(object, "envelope_id");
  envelope.reason = str(object, "reason");
  if (object->has("retry_attempt") && !object->get("retry_attempt").isEmpty()) {
    envelope.retry_attempt = object->getValue<int>("retry_attempt");
  }
  if (auto payload = object->getObject("payload")) envelope.payload_json = serialize(*payload);
  return envelope;
}

std::string ackFrame(const std::string& envelope_id) {
  Object ack;
  ack.set("envelope_id", envelope_id);
  return serialize(ack);
}

EventDecision decideEvent(std::string_view payload_json, const Audience& audience) {
  auto payload = parseObject(payload_json);
  auto event = payload ? payload->getObject("event") : nullptr;
  if (!event) return ignore("payload without an event");
  if (auto why = ignoreReason(event, audience); !why.empty()) return ignore(why);
  EventDecision decision;
  auto user = str(event, "user");
  decision.dedupe_key = dedupeKey(payload, event);
  decision.message = {str(event, "channel"), user, senderName(event, user),
                      str(event, "text"),    {},   str(event, "ts")};
  if (!audience.allowed_users.contains(user)) {
    decision.action = EventDecision::Action::kStranger;
    decision.why = "sender not in SLACK_ALLOWED_USERS";
    return decision;
  }
  decision.action = EventDecision::Action::kDeliver;
  decision.files = imageFiles(event);
  return decision;
}

Result<std::set<std::string, std::less<>>> parseAllowedUsers(std::string_view value) {
  std::set<std::string, std::less<>> users;
  std::size_t pos = 0;
  while (pos < value.size()) {
    auto end = value.find_first_of(", \t", pos);
    if (end == std::string_view::npos) end = value.size();
    auto id = value.substr(pos, end - pos);
    if (!id.empty() && !isMemberId(id)) {
      return Status::error("SLACK_ALLOWED_USERS: '" + std::string(id) +
                           "' is not a Slack member id (like U012AB3CD)");
    }
    if (!id.empty()) users.emplace(id);
    pos = end + 1;
  }
  if (users.empty()) return Status::error("SLACK_ALLOWED_USERS is empty: list member ids");
  return users;
}

Result<ApiReply> parseApiReply(std::string_view body) {
  auto object = parseObject(body);
  if (!object) return Status::error("slack: Web API reply is not a JSON object");
  ApiReply reply;
  reply.ok = object->has("ok") && object->get("ok").isBoolean() && object->getValue<bool>("ok");
  reply.error = str(object, "error");
  reply.body = std::string(body);
  return reply;
}

std::string stringField(std::string_view body, const std::string& name) {
  return str(parseObject(body), name);
}

std::string postMessageBody(const std::string& channel, std::string_view text) {
  Object body;
  body.set("channel", channel);
  body.set("text", std::string(text));
  return serialize(body);
}

std::string updateMessageBody(const std::string& channel, const std::string& ts,
                              std::string_view text) {
  Object body;
  body.set("channel", channel);
  body.set("ts", ts);
  body.set("text", std::string(text));
  return serialize(body);
}

std::string postImageBody(const std::string& channel, const std::string& image_url,
                          std::string_view caption) {
  Object block;
  block.set("type", "image");
  block.set("image_url", image_url);
  block.set("alt_text", caption.empty() ? std::string("image") : std::string(caption));
  Array blocks;
  blocks.add(block);
  Object body;
  body.set("channel", channel);
  body.set("text", caption.empty() ? std::string("image") : std::string(caption));
  body.set("blocks", blocks);
  return serialize(body);
}

std::string escapeText(std::string_view text) {
  std::string out;
  out.reserve(text.size());
  for (char c : text) {
    switch (c) {
      case '&': out += "&amp;"; break;
      case '<': out += "&lt;"; break;
      case '>': out += "&gt;"; break;
      default: out += c;
    }
  }
  return out;
}

std::string markdownToMrkdwn(std::string_view markdown) {
  std::string out;
  out.reserve(markdown.size() + markdown.size() / 8);
  bool in_fence = false;
  std::size_t pos = 0;
  while (pos <= markdown.size()) {
    auto end = markdown.find('\n', pos);
    if (end == std::string_view::npos) end = markdown.size();
    auto line = markdown.substr(pos, end - pos);
    if (isFence(line)) {
      in_fence = !in_fence;
      out += "```";
      // The language tag of an opening fence means nothing to Slack.
    } else if (in_fence) {
      out += escapeText(line);
    } else {
      renderLine(line, out);
    }
    if (end < markdown.size()) out += '\n';
    pos = end + 1;
  }
  return out;
}

}  // namespace gantry::slack
