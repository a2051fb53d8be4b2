#include "mcp/jsonrpc.h"

#include <Poco/Exception.h>
#include <Poco/JSON/Array.h>
#include <Poco/JSON/Parser.h>

#include <charconv>
#include <regex>
#include <sstream>

namespace gantry::mcp::jsonrpc {
namespace {

Poco::JSON::Object::Ptr envelope() {
  Poco::JSON::Object::Ptr message = new Poco::JSON::Object;
  message->set("jsonrpc", "2.0");
  return message;
}

Status decodeError(const Poco::JSON::Object::Ptr& object, Message* out) {
  auto error = object->getObject("error");
  if (error.isNull()) return Status::error("JSON-RPC error member is not an object");
  out->kind = Message::Kind::kError;
  out->error_code = error->optValue<int>("code", 0);
  out->error_message = error->optValue<std::string>("message", "");
  return Status::ok();
}

Result<Message> decode(const Poco::Dynamic::Var& value) {
  if (value.type() != typeid(Poco::JSON::Object::Ptr)) {
    return Status::error("JSON-RPC message is not an object");
  }
  auto object = value.extract<Poco::JSON::Object::Ptr>();
  if (object->optValue<std::string>("jsonrpc", "") != "2.0") {
    return Status::error("not a JSON-RPC 2.0 message (jsonrpc member missing)");
  }
  Message message;
  if (object->has("id")) message.id = object->get("id");
  if (object->has("method")) {
    message.method = object->getValue<std::string>("method");
    message.params = object->getObject("params");
    message.kind = message.id.isEmpty() ? Message::Kind::kNotification : Message::Kind::kRequest;
    return message;
  }
  if (object->has("error")) {
    auto status = decodeError(object, &message);
    if (!status.isOk()) return status;
    return message;
  }
  if (!object->has("result")) return Status::error("JSON-RPC message has no method or result");
  message.kind = Message::Kind::kResult;
  message.result = object->getObject("result");
  return message;
}

}  // namespace

std::optional<std::int64_t> Message::intId() const {
  if (id.isEmpty() || !id.isInteger()) return std::nullopt;
  try {
    return id.convert<std::int64_t>();
  } catch (const Poco::Exception&) {
    return std::nullopt;
  }
}

std::string stringify(const Poco::Dynamic::Var& value) {
  std::ostringstream out;
  Poco::JSON::Stringifier::condense(value, out);
  return out.str();
}

std::string request(std::int64_t id, const std::string& method,
                    const Poco::JSON::Object::Ptr& params) {
  auto message = envelope();
  message->set("id", id);
  message->set("method", method);
  if (!params.isNull()) message->set("params", params);
  return stringify(message);
}

std::string notification(const std::string& method, const Poco::JSON::Object::Ptr& params) {
  auto message = envelope();
  message->set("method", method);
  if (!params.isNull()) message->set("params", params);
  return stringify(message);
}

std::string response(const Poco::Dynamic::Var& id, const Poco::JSON::Object::Ptr& result) {
  auto message = envelope();
  message->set("id", id);
  message->set("result",
               result.isNull() ? Poco::JSON::Object::Ptr(new Poco::JSON::Object) : result);
  return stringify(message);
}

std::string errorResponse(const Poco::Dynamic::Var& id, int code, const std::string& text) {
  Poco::JSON::Object::Ptr error = new Poco::JSON::Object;
  error->set("code", code);
  error->set("message", text);
  auto message = envelope();
  message->set("id", id);
  message->set("error", error);
  return stringify(message);
}

Result<std::vector<Message>> parse(std::string_view text) {
  Poco::Dynamic::Var value;
  try {
    Poco::JSON::Parser parser;
    value = parser.parse(std::string(text));
  } catch (const Poco::Exception& e) {
    return Status::error("not JSON: " + e.message());
  }
  std::vector<Message> messages;
  if (value.type() == typeid(Poco::JSON::Array::Ptr)) {
    for (const auto& item : *value.extract<Poco::JSON::Array::Ptr>()) {
      auto message = decode(item);
      if (!message.isOk()) return message.status();
      messages.push_back(std::move(message.value()));
    }
    return messages;
  }
  auto message = decode(value);
  if (!message.isOk()) return message.status();
  messages.push_back(std::move(message.value()));
  return messages;
}

LineSplitter::LineSplitter(std::size_t cap, OnLine on_line, OnOversize on_oversize)
    : cap_(cap), on_line_(std::move(on_line)), on_oversize_(std::move(on_oversize)) {}

void LineSplitter::feed(std::string_view bytes) {
  while (!bytes.empty()) {
    auto newline = bytes.find('\n');
    append(bytes.substr(0, newline));
    if (newline == std::string_view::npos) return;
    endLine();
    bytes.remove_prefix(newline + 1);
  }
}

void LineSplitter::append(std::string_view piece) {
  if (dropped_ == 0 && line_.size() + piece.size() <= cap_) {
    line_.append(piece);
    return;
  }
  // Over the cap: keep only the head already stored and a rolling tail.
  const std::size_t room = dropped_ == 0 ? cap_ - line_.size() : 0;
  line_.append(piece.substr(0, room));
  piece.remove_prefix(room);
  dropped_ += piece.size();
  constexpr std::size_t kTail = 4096;
  tail_.append(piece.size() > kTail ? piece.substr(piece.size() - kTail) : piece);
  if (tail_.size() > kTail) tail_.erase(0, tail_.size() - kTail);
}

void LineSplitter::endLine() {
  if (dropped_ > 0) {
    std::string_view head(line_);
    on_oversize_(head.substr(0, 4096), tail_, line_.size() + dropped_);
  } else {
    std::string_view line(line_);
    if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
    if (!line.empty()) on_line_(line);
  }
  line_.clear();
  tail_.clear();
  dropped_ = 0;
}

namespace {

constexpr auto kNone = std::string_view::npos;

/// The index just past the JSON string that starts at text[at] (a quote); npos if unclosed.
std::size_t skipString(std::string_view text, std::size_t at) {
  for (std::size_t i = at + 1; i < text.size(); ++i) {
    if (text[i] == '\\') {
      ++i;
    } else if (text[i] == '"') {
      return i + 1;
    }
  }
  return kNone;
}

std::optional<std::int64_t> leadingInteger(std::string_view text) {
  const auto start = text.find_first_not_of(" \t\r\n");
  if (start == kNone) return std::nullopt;
  std::int64_t value = 0;
  const auto* end = text.data() + text.size();
  const auto [next, error] = std::from_chars(text.data() + start, end, value);
  if (error != std::errc() || (next != end && std::string_view(",} \t\r\n").find(*next) == kNone)) {
    return std::nullopt;
  }
  return value;
}

}  // namespace

std::optional<std::int64_t> responseId(std::string_view text) {
  auto i = text.find_first_not_of(" \t\r\n");
  if (i == kNone || text[i] != '{') return std::nullopt;
  int depth = 0;
  bool answer = false;
  std::optional<std::int64_t> id;
  for (; i < text.size(); ++i) {
    const char c = text[i];
    if (c == '"') {
      const auto end = skipString(text, i);
      if (end == kNone) return std::nullopt;
      const auto colon = text.find_first_not_of(" \t\r\n", end);
      if (depth == 1 && colon != kNone && text[colon] == ':') {  // a member name
        const auto key = text.substr(i + 1, end - i - 2);
        answer = answer || key == "result" || key == "error";
        if (key == "id") id = leadingInteger(text.substr(colon + 1));
      }
      i = end - 1;
    } else if (c == '{' || c == '[') {
      ++depth;
    } else if ((c == '}' || c == ']') && --depth == 0) {
      return answer ? id : std::nullopt;
    }
  }
  return std::nullopt;  // the object never closed
}

std::optional<std::int64_t> findResponseId(std::string_view fragment) {
  static const std::regex pattern(R"re((^|[^\\])"id"\s*:\s*(-?[0-9]+))re");
  std::string text(fragment);
  std::optional<std::int64_t> found;
  for (std::sregex_iterator it(text.begin(), text.end(), pattern), end; it != end; ++it) {
    const std::string digits = (*it)[2].str();
    std::int64_t value = 0;
    // An id past the int64 range is none of ours (and must not throw on a server's bytes).
    if (std::from_chars(digits.data(), digits.data() + digits.size(), value).ec == std::errc()) {
      found = value;
    }
  }
  return found;
}

}  // namespace gantry::mcp::jsonrpc
