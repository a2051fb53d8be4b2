#include "openai_stream.h"

#include <algorithm>

#include "openai_api.h"
#include "openai_json.h"
#include "rapidjson/document.h"
#include "rapidjson/error/en.h"
#include "rapidjson/stringbuffer.h"
#include "rapidjson/writer.h"

namespace gantry::openai {
namespace {

constexpr std::string_view kOpenTag = "<think>";
constexpr std::string_view kCloseTag = "</think>";

// Length of the longest suffix of text that is a proper prefix of tag.
std::size_t partialTagLength(std::string_view text, std::string_view tag) {
  for (std::size_t n = std::min(text.size(), tag.size() - 1); n > 0; --n) {
    if (text.substr(text.size() - n) == tag.substr(0, n)) return n;
  }
  return 0;
}

bool isSpace(char c) { return c == ' ' || c == '\n' || c == '\r' || c == '\t'; }

std::string compact(const rapidjson::Value& value) {
  rapidjson::StringBuffer buffer;
  rapidjson::Writer<rapidjson::StringBuffer> writer(buffer);
  value.Accept(writer);
  return {buffer.GetString(), buffer.GetSize()};
}

}  // namespace

void ThinkFilter::feed(std::string_view text, std::string* visible, std::string* reasoning) {
  std::string buffer = std::move(held_);
  held_.clear();
  buffer.append(text);
  std::string_view rest = buffer;
  while (!rest.empty()) {
    std::string_view tag = in_think_ ? kCloseTag : kOpenTag;
    std::size_t found = rest.find(tag);
    if (found == std::string_view::npos) {
      std::size_t partial = partialTagLength(rest, tag);
      emit(rest.substr(0, rest.size() - partial), visible, reasoning);
      held_ = rest.substr(rest.size() - partial);
      return;
    }
    emit(rest.substr(0, found), visible, reasoning);
    rest.remove_prefix(found + tag.size());
    in_think_ = !in_think_;
    if (!in_think_) skip_space_ = true;
  }
}

void ThinkFilter::finish(std::string* visible, std::string* reasoning) {
  std::string held = std::move(held_);
  held_.clear();
  emit(held, visible, reasoning);
}

void ThinkFilter::emit(std::string_view text, std::string* visible, std::string* reasoning) {
  if (in_think_) {
    reasoning->append(text);
    return;
  }
  if (skip_space_) {
    while (!text.empty() && isSpace(text.front())) text.remove_prefix(1);
    if (text.empty()) return;
    skip_space_ = false;
  }
  visible->append(text);
}

Status SseParser::feed(std::string_view bytes, const DataFn& on_data) {
  while (!bytes.empty()) {
    if (after_cr_ && bytes.front() == '\n') bytes.remove_prefix(1);  // the LF of a CRLF
    after_cr_ = false;
    std::size_t end = bytes.find_first_of("\r\n");
    const auto piece = bytes.substr(0, end);
    if (line_.size() + piece.size() > cap_) return overCap();
    line_.append(piece);
    if (end == std::string_view::npos) return Status::ok();
    after_cr_ = bytes[end] == '\r';
    bytes.remove_prefix(end + 1);
    Status status = endLine(on_data);
    if (!status.isOk()) return status;
  }
  return Status::ok();
}

Status SseParser::finish(const DataFn& on_data) {
  if (!line_.empty()) {
    Status status = endLine(on_data);
    if (!status.isOk()) return status;
  }
  return endLine(on_data);  // an empty line dispatches what is pending
}

Status SseParser::endLine(const DataFn& on_data) {
  if (line_.empty()) {
    if (!has_data_) return Status::ok();
    std::string data = std::move(data_);
    data_.clear();
    has_data_ = false;
    return on_data(data);
  }
  std::string_view line = line_;
  std::size_t colon = line.find(':');
  std::string_view field = line.substr(0, colon);
  std::string_view value;
  if (colon != std::string_view::npos) {
    value = line.substr(colon + 1);
    if (!value.empty() && value.front() == ' ') value.remove_prefix(1);
  }
  if (colon != 0 && field == "data") {  // colon == 0 is a comment line
    if (data_.size() + value.size() + 1 > cap_) return overCap();
    if (has_data_) data_.push_back('\n');
    data_.append(value);
    has_data_ = true;
  }
  line_.clear();
  return Status::ok();
}

Status SseParser::overCap() const {
  return Status::error("a stream event over " + std::to_string(cap_ / 1024) + " KB");
}

Status StreamAssembler::onData(std::string_view data) {
  if (data == "[DONE]") {
    done_ = true;
    return Status::ok();
  }
  rapidjson::Document doc;
  doc.Parse(data.data(), data.size());
  if (doc.HasParseError() || !doc.IsObject()) {
    return Status::error(std::string("stream chunk is not a JSON object (") +
                         rapidjson::GetParseError_En(doc.GetParseError()) + ")");
  }
  std::string api_error = apiErrorMessage(data);
  if (!api_error.empty()) return Status::error("error: " + api_error);
  json::readUsage(doc, &response_.usage);
  if (auto model = json::string(doc, "model"); !model.empty()) response_.model = std::string(model);
  const rapidjson::Value* choices = json::member(doc, "choices");
  if (choices == nullptr || !choices->IsArray() || choices->Empty()) return Status::ok();
  return onChoice((*choices)[0]);
}

Status StreamAssembler::onChoice(const rapidjson::Value& choice) {
  std::string_view finish_reason = json::string(choice, "finish_reason");
  if (!finish_reason.empty()) response_.finish_reason = finish_reason;
  const rapidjson::Value* delta = json::member(choice, "delta");
  if (delta == nullptr) return Status::ok();
  std::string_view thinking = json::reasoning(*delta);
  if (!thinking.empty()) reasoning(thinking);
  std::string_view content = json::string(*delta, "content");
  if (!content.empty()) text(content);
  const rapidjson::Value* calls = json::member(*delta, "tool_calls");
  if (calls == nullptr) return Status::ok();
  if (!calls->IsArray()) return Status::error("delta.tool_calls is not an array");
  for (rapidjson::SizeType i = 0; i < calls->Size(); ++i) {
    toolDelta((*calls)[i], static_cast<int>(i));
  }
  return Status::ok();
}

void StreamAssembler::toolDelta(const rapidjson::Value& delta, int position) {
  int index = slotFor(delta, position);
  ToolCall& call = calls_[index];
  saw_delta_ = true;
  std::string_view id = json::string(delta, "id");
  if (!id.empty()) call.id = id;
  std::string_view signature = json::thoughtSignature(delta);
  if (!signature.empty()) call.thought_signature = signature;
  const rapidjson::Value* function = json::member(delta, "function");
  if (function == nullptr) return;
  std::string_view name = json::string(*function, "name");
  if (!name.empty() && call.name.empty()) {
    call.name = name;
    toolName(index, name);
  }
  const rapidjson::Value* args = json::member(*function, "arguments");
  if (args != nullptr && args->IsString()) {
    call.arguments.append(args->GetString(), args->GetStringLength());
  } else if (args != nullptr) {
    call.arguments = compact(*args);
  }
}

// The call a delta continues: its index; without one (some servers), a new id starts a new
// call and a delta without id continues the last one.
int StreamAssembler::slotFor(const rapidjson::Value& delta, int position) const {
  const rapidjson::Value* index = json::member(delta, "index");
  if (index != nullptr && index->IsInt()) return index->GetInt();
  if (calls_.empty()) return position;
  std::string_view id = json::string(delta, "id");
  if (id.empty()) return calls_.rbegin()->first;
  for (const auto& [slot, call] : calls_) {
    if (call.id == id) return slot;
  }
  return calls_.rbegin()->first + 1;
}

void StreamAssembler::text(std::string_view content) {
  saw_delta_ = true;
  std::string visible;
  std::string thinking;
  think_.feed(content, &visible, &thinking);
  deliver(visible, thinking);
}

void StreamAssembler::deliver(std::string_view visible, std::string_view thinking) {
  if (!thinking.empty()) reasoning(thinking);
  if (visible.empty()) return;
  response_.message.content.append(visible);
  if (callbacks_ != nullptr && callbacks_->on_text) {
    delivered_ = true;
    callbacks_->on_text(visible);
  }
}

void StreamAssembler::reasoning(std::string_view text) {
  saw_delta_ = true;
  response_.message.reasoning.append(text);
  if (callbacks_ != nullptr && callbacks_->on_reasoning) {
    delivered_ = true;
    callbacks_->on_reasoning(text);
  }
}

void StreamAssembler::toolName(int index, std::string_view name) {
  if (callbacks_ != nullptr && callbacks_->on_tool) {
    delivered_ = true;
    callbacks_->on_tool(index, name);
  }
}

ChatResponse StreamAssembler::finish() {
  std::string visible;
  std::string thinking;
  think_.finish(&visible, &thinking);
  deliver(visible, thinking);
  response_.message.role = Role::kAssistant;
  for (auto& [index, call] : calls_) {
    if (call.id.empty()) call.id = generateCallId();
    response_.message.tool_calls.push_back(std::move(call));
  }
  calls_.clear();
  return std::move(response_);
}

}  // namespace gantry::openai
