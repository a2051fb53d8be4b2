// The Bot API methods of the fake, and Telegram's HTML entity parsing.

#include <Poco/JSON/Array.h>
#include <Poco/JSON/Object.h>
#include <Poco/JSON/Parser.h>
#include <Poco/JSON/Stringifier.h>
#include <Poco/Net/HTMLForm.h>
#include <Poco/Net/HTTPServerRequest.h>
#include <Poco/Net/HTTPServerResponse.h>
#include <Poco/Net/MessageHeader.h>
#include <Poco/Net/PartHandler.h>
#include <Poco/NumberParser.h>
#include <Poco/StreamCopier.h>
#include <Poco/UTF8Encoding.h>
#include <Poco/UnicodeConverter.h>

#include <algorithm>
#include <set>
#include <sstream>

#include "fake_telegram.h"
#include "fake_telegram_internal.h"

namespace gantry::fakes {
namespace {

using Poco::JSON::Object;

constexpr std::size_t kMaxText = 4096;
constexpr std::size_t kMaxCaption = 1024;

class UploadHandler final : public Poco::Net::PartHandler {
 public:
  explicit UploadHandler(BotParams& params) : params_(params) {}
  void handlePart(const Poco::Net::MessageHeader& header, std::istream& stream) override {
    std::string disposition;
    Poco::Net::NameValueCollection parameters;
    Poco::Net::MessageHeader::splitParameters(header.get("Content-Disposition", ""), disposition,
                                              parameters);
    Poco::StreamCopier::copyToString(stream, params_.uploads[parameters.get("name", "")]);
  }

 private:
  BotParams& params_;
};

std::string ok(const std::string& result_json) {
  return "{\"ok\":true,\"result\":" + result_json + "}";
}

std::string badRequest(int* status, const std::string& what) {
  *status = 400;
  return errorJson(400, "Bad Request: " + what, 0);
}

std::int64_t toInt(const std::string& text, std::int64_t fallback) {
  Poco::Int64 value = 0;
  return Poco::NumberParser::tryParse64(text, value) ? value : fallback;
}

// Checks text (and HTML) the way sendMessage does; returns "" or an error description.
std::string checkText(const std::string& text, const std::string& parse_mode, std::size_t limit,
                      const char* empty_error, const char* long_error) {
  std::string visible = text;
  std::string error;
  if (parse_mode == "HTML" && !parseTelegramHtml(text, &visible, &error)) {
    return "can't parse entities: " + error;
  }
  if (visible.find_first_not_of(" \n\t") == std::string::npos) return empty_error;
  if (utf16Length(visible) > limit) return long_error;
  return "";
}

// The text a Message object carries: entities parsed out.
std::string visibleText(const std::string& text, const std::string& parse_mode) {
  std::string visible = text;
  std::string error;
  if (parse_mode == "HTML") parseTelegramHtml(text, &visible, &error);
  return visible;
}

std::string tagName(const std::string& tag) {
  std::size_t end = tag.find_first_of(" \t\n=");
  return tag.substr(0, end);
}

bool decodeEntity(const std::string& name, std::string* out) {
  static const std::map<std::string, std::string> kNamed = {
      {"lt", "<"}, {"gt", ">"}, {"amp", "&"}, {"quot", "\""}};
  auto it = kNamed.find(name);
  if (it != kNamed.end()) {
    *out += it->second;
    return true;
  }
  if (name.size() < 2 || name[0] != '#') return false;
  unsigned value = 0;
  bool parsed = name[1] == 'x' ? Poco::NumberParser::tryParseHex(name.substr(2), value)
                               : Poco::NumberParser::tryParseUnsigned(name.substr(1), value);
  if (!parsed) return false;
  Poco::UTF8Encoding utf8;
  unsigned char bytes[4];
  int n = utf8.convert(static_cast<int>(value), bytes, 4);
  out->append(reinterpret_cast<const char*>(bytes), static_cast<std::size_t>(n));
  return true;
}

}  // namespace

std::size_t utf16Length(const std::string& text) {
  Poco::UTF16String wide;
  Poco::UnicodeConverter::convert(text, wide);
  return wide.size();
}

bool parseTelegramHtml(const std::string& html, std::string* visible, std::string* error) {
  static const std::set<std::string> kTags = {
      "b",   "strong", "i",          "em", "u",        "ins",  "s",   "strike",
      "del", "span",   "tg-spoiler", "a",  "tg-emoji", "code", "pre", "blockquote"};
  std::vector<std::string> open;
  visible->clear();
  for (std::size_t i = 0; i < html.size(); ++i) {
    char c = html[i];
    if (c == '&') {
      auto end = html.find(';', i);
      if (end != std::string::npos && decodeEntity(html.substr(i + 1, end - i - 1), visible)) {
        i = end;
        continue;
      }
    }
    if (c != '<') {
      *visible += c;
      continue;
    }
    auto end = html.find('>', i);
    std::string tag = end == std::string::npos ? "" : html.substr(i + 1, end - i - 1);
    std::string at = " at byte offset " + std::to_string(i);
    if (!tag.empty() && tag[0] == '/') {
      std::string name = tagName(tag.substr(1));
      if (open.empty()) {
        *error = "Unexpected end tag" + at;
        return false;
      }
      if (open.back() != name) {
        *error = "Unmatched end tag";
        error->append(at).append(", expected \"</").append(open.back());
        error->append(">\", found \"</").append(name).append(">\"");
        return false;
      }
      open.pop_back();
    } else {
      std::string name = tagName(tag);
      if (end == std::string::npos || kTags.count(name) == 0) {
        *error = "Unsupported start tag \"";
        error->append(name).append("\"").append(at);
        return false;
      }
      open.push_back(name);
    }
    i = end;
  }
  if (!open.empty()) {
    *error = "Can't find end tag corresponding to start tag \"" + open.back() + "\"";
    return false;
  }
  return true;
}

BotParams readParams(Poco::Net::HTTPServerRequest& request) {
  BotParams params;
  if (request.getContentType().find("application/json") != std::string::npos) {
    std::string body;
    Poco::StreamCopier::copyToString(request.stream(), body);
    Poco::JSON::Parser parser;
    Object::Ptr object = parser.parse(body).extract<Object::Ptr>();
    for (const auto& [name, value] : *object) {
      if (value.isString()) {
        params.values[name] = value.toString();
      } else {
        std::ostringstream out;
        Poco::JSON::Stringifier::stringify(value, out);
        params.values[name] = out.str();
      }
    }
    return params;
  }
  UploadHandler handler(params);
  Poco::Net::HTMLForm form(request, request.stream(), handler);
  for (const auto& [name, value] : form) params.values[name] = value;
  return params;
}

void sendJson(Poco::Net::HTTPServerResponse& response, int status, const std::string& body) {
  response.setStatus(static_cast<Poco::Net::HTTPResponse::HTTPStatus>(status));
  response.setContentType("application/json");
  response.setContentLength(static_cast<std::streamsize>(body.size()));
  response.send() << body;
}

std::string errorJson(int code, const std::string& description, int retry_after) {
  Object error;
  error.set("ok", false);
  error.set("error_code", code);
  error.set("description", description);
  if (retry_after > 0) {
    Object::Ptr parameters = new Object;
    parameters->set("retry_after", retry_after);
    error.set("parameters", parameters);
  }
  std::ostringstream out;
  error.stringify(out);
  return out.str();
}

std::string defaultDescription(int status) {
  switch (status) {
    case 400: return "Bad Request";
    case 401: return "Unauthorized";
    case 403: return "Forbidden: bot was blocked by the user";
    case 404: return "Not Found";
    case 409:
      return "Conflict: terminated by other getUpdates request; make sure that only one bot "
             "instance is running";
    case 429: return "Too Many Requests";
    case 502: return "Bad Gateway";
    default: return "Internal Server Error";
  }
}

std::string FakeTelegram::dispatch(const std::string& method, const BotParams& params,
                                   int* status) {
  if (method == "getUpdates") return getUpdates(params, status);
  if (method == "sendMessage") return sendMessage(params, status);
  if (method == "editMessageText") return editMessageText(params, status);
  if (method == "sendPhoto") return sendPhoto(params, status);
  if (method == "getFile") return getFile(params, status);
  if (method == "setMyCommands") return setMyCommands(params, status);
  if (method == "getMyCommands") return getMyCommands();
  if (method == "getMe") {
    return ok("{\"id\":42,\"is_bot\":true,\"first_name\":\"Fake\",\"username\":\"fake_bot\"}");
  }
  if (method == "sendChatAction") {
    if (params.get("action").empty()) return badRequest(status, "action is empty");
    record({"sendChatAction", params.get("chat_id"), "", params.get("action"), "", "", 0});
    return ok("true");
  }
  *status = 404;
  return errorJson(404, "Not Found", 0);
}

// Long poll: confirms updates below offset, waits up to timeout seconds for newer ones. A
// newer getUpdates ends an older one with 409, as Telegram does.
std::string FakeTelegram::getUpdates(const BotParams& params, int* status) {
  std::int64_t offset = toInt(params.get("offset"), 0);
  auto timeout = std::chrono::seconds(toInt(params.get("timeout"), 0));
  std::unique_lock lock(mutex_);
  if (!hold_polls_) timeout = std::chrono::seconds::zero();
  if (offset > 0) {
    std::erase_if(updates_, [&](const auto& update) { return update.first < offset; });
    confirmed_ = std::max(confirmed_, offset);
  }
  std::uint64_t generation = ++poll_generation_;
  auto ready = [&] {
    return stopping_ || generation != poll_generation_ ||
           std::any_of(updates_.begin(), updates_.end(),
                       [&](const auto& update) { return update.first >= offset; });
  };
  ++polls_waiting_;
  changed_.notify_all();
  changed_.wait_for(lock, timeout, ready);
  --polls_waiting_;
  if (generation != poll_generation_) {
    *status = 409;
    return errorJson(409, defaultDescription(409), 0);
  }
  std::int64_t limit = std::clamp<std::int64_t>(toInt(params.get("limit"), 100), 1, 100);
  std::string result = "[";
  for (const auto& [id, json] : updates_) {
    if (id < offset || limit-- <= 0) continue;
    result += (result.size() > 1 ? "," : "") + json;
  }
  return ok(result + "]");
}

std::string FakeTelegram::messageJson(std::int64_t id, const std::string& chat_id,
                                      const std::string& text) {
  Object message;
  message.set("message_id", id);
  message.set("date", 1700000000);
  Object::Ptr chat = new Object;
  chat->set("id", toInt(chat_id, 0));
  chat->set("type", "private");
  message.set("chat", chat);
  Object::Ptr from = new Object;
  from->set("id", 42);
  from->set("is_bot", true);
  from->set("first_name", "Fake");
  message.set("from", from);
  message.set("text", text);
  std::ostringstream out;
  message.stringify(out);
  return out.str();
}

std::string FakeTelegram::sendMessage(const BotParams& params, int* status) {
  std::string chat_id = params.get("chat_id");
  std::string text = params.get("text");
  std::string mode = params.get("parse_mode");
  if (chat_id.empty()) return badRequest(status, "chat_id is empty");
  std::string problem =
      checkText(text, mode, kMaxText, "message text is empty", "message is too long");
  if (!problem.empty()) return badRequest(status, problem);
  std::int64_t id = 0;
  {
    std::lock_guard lock(mutex_);
    id = next_message_id_++;
    messages_[chat_id + ":" + std::to_string(id)] = {chat_id, text, mode};
  }
  record({"sendMessage", chat_id, std::to_string(id), text, mode, "", 0});
  return ok(messageJson(id, chat_id, visibleText(text, mode)));
}

std::string FakeTelegram::editMessageText(const BotParams& params, int* status) {
  std::string chat_id = params.get("chat_id");
  std::string message_id = params.get("message_id");
  std::string text = params.get("text");
  std::string mode = params.get("parse_mode");
  std::string problem =
      checkText(text, mode, kMaxText, "message text is empty", "MESSAGE_TOO_LONG");
  if (!problem.empty()) return badRequest(status, problem);
  {
    std::lock_guard lock(mutex_);
    auto it = messages_.find(chat_id + ":" + message_id);
    if (it == messages_.end()) return badRequest(status, "message to edit not found");
    if (it->second.source == text && it->second.parse_mode == mode) {
      return badRequest(status,
                        "message is not modified: specified new message content and reply "
                        "markup are exactly the same as a current content and reply markup of "
                        "the message");
    }
    it->second = {chat_id, text, mode};
  }
  record({"editMessageText", chat_id, message_id, text, mode, "", 0});
  return ok(messageJson(toInt(message_id, 0), chat_id, visibleText(text, mode)));
}

std::string FakeTelegram::sendPhoto(const BotParams& params, int* status) {
  std::string chat_id = params.get("chat_id");
  std::string caption = params.get("caption");
  std::string mode = params.get("parse_mode");
  auto upload = params.uploads.find("photo");
  std::string photo = upload != params.uploads.end() ? "upload" : params.get("photo");
  if (photo.empty()) return badRequest(status, "there is no photo in the request");
  if (!caption.empty()) {
    std::string problem = checkText(caption, mode, kMaxCaption, "", "message caption is too long");
    if (!problem.empty()) return badRequest(status, problem);
  }
  std::int64_t id = 0;
  {
    std::lock_guard lock(mutex_);
    id = next_message_id_++;
  }
  std::size_t bytes = upload != params.uploads.end() ? upload->second.size() : 0;
  record({"sendPhoto", chat_id, std::to_string(id), caption, mode, photo, bytes});
  return ok(messageJson(id, chat_id, ""));
}

std::string FakeTelegram::getFile(const BotParams& params, int* status) {
  std::string file_id = params.get("file_id");
  std::lock_guard lock(mutex_);
  auto it = files_.find(file_id);
  if (it == files_.end()) return badRequest(status, "invalid file_id");
  Object file;
  file.set("file_id", file_id);
  file.set("file_unique_id", "u" + file_id);
  file.set("file_size", static_cast<Poco::UInt64>(it->second.second.size()));
  file.set("file_path", it->second.first);
  std::ostringstream out;
  file.stringify(out);
  return ok(out.str());
}

}  // namespace gantry::fakes
