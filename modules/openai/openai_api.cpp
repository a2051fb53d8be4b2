#include "openai_api.h"

#include <algorithm>
#include <cstdio>
#include <random>
#include <span>

#include "openai_json.h"
#include "openai_stream.h"
#include "rapidjson/document.h"
#include "rapidjson/error/en.h"
#include "request_writer.h"

namespace gantry::openai {
namespace {

using Writer = RequestWriter;

constexpr std::size_t kKeptBufferBytes = 1 << 20;
constexpr std::string_view kEmptyParameters = R"({"type":"object","properties":{}})";

void writeField(Writer& w, const char* key, std::string_view value) {
  w.Key(key);
  w.Text(value);
}

std::string imageUrl(const Image& image) {
  if (!image.url.empty()) return image.url;
  return "data:" + (image.mime_type.empty() ? std::string("image/jpeg") : image.mime_type) +
         ";base64," + image.data_base64;
}

void writeTextPart(Writer& w, std::string_view text) {
  w.StartObject();
  writeField(w, "type", "text");
  writeField(w, "text", text);
  w.EndObject();
}

void writeImageParts(Writer& w, const std::vector<Image>& images) {
  for (const Image& image : images) {
    w.StartObject();
    writeField(w, "type", "image_url");
    w.Key("image_url");
    w.StartObject();
    writeField(w, "url", imageUrl(image));
    w.EndObject();
    w.EndObject();
  }
}

// A user message with images becomes a content array of text and image_url parts.
void writeUserContent(Writer& w, const ChatMessage& message) {
  w.Key("content");
  if (message.images.empty()) {
    w.Text(message.content);
    return;
  }
  w.StartArray();
  if (!message.content.empty()) writeTextPart(w, message.content);
  writeImageParts(w, message.images);
  w.EndArray();
}

// Chat completions take images only in user messages, and nothing may come between an
// assistant's tool calls and their results: the images of a round's results follow the
// last of them as one user message, each result's introduced by the call it answers.
void writeResultImages(Writer& w, std::span<const ChatMessage> results) {
  if (std::none_of(results.begin(), results.end(),
                   [](const ChatMessage& m) { return !m.images.empty(); })) {
    return;
  }
  w.StartObject();
  writeField(w, "role", "user");
  w.Key("content");
  w.StartArray();
  for (const ChatMessage& result : results) {
    if (result.images.empty()) continue;
    writeTextPart(w, "[images returned by " + result.name + ", call " + result.tool_call_id + "]");
    writeImageParts(w, result.images);
  }
  w.EndArray();
  w.EndObject();
}

void writeToolCall(Writer& w, const ToolCall& call) {
  w.StartObject();
  writeField(w, "id", call.id);
  writeField(w, "type", "function");
  w.Key("function");
  w.StartObject();
  writeField(w, "name", call.name);
  writeField(w, "arguments", call.arguments.empty() ? std::string_view("{}") : call.arguments);
  w.EndObject();
  if (!call.thought_signature.empty()) {
    w.Key("extra_content");
    w.StartObject();
    w.Key("google");
    w.StartObject();
    writeField(w, "thought_signature", call.thought_signature);
    w.EndObject();
    w.EndObject();
  }
  w.EndObject();
}

void writeAssistant(Writer& w, const ChatMessage& message) {
  w.Key("content");
  if (message.content.empty() && !message.tool_calls.empty()) {
    w.Null();  // content may be null only beside tool_calls
  } else {
    w.Text(message.content);
  }
  if (message.tool_calls.empty()) return;
  w.Key("tool_calls");
  w.StartArray();
  for (const ToolCall& call : message.tool_calls) writeToolCall(w, call);
  w.EndArray();
}

void writeMessage(Writer& w, const ChatMessage& message) {
  w.StartObject();
  writeField(w, "role", roleName(message.role));
  switch (message.role) {
    case Role::kUser: writeUserContent(w, message); break;
    case Role::kAssistant: writeAssistant(w, message); break;
    case Role::kTool:
      writeField(w, "tool_call_id", message.tool_call_id);
      writeField(w, "content", message.content);
      break;
    case Role::kSystem: writeField(w, "content", message.content); break;
  }
  w.EndObject();
}

void writeMessages(Writer& w, const std::vector<ChatMessage>& messages) {
  std::size_t results = 0;  // where the run of tool results that messages[i] ends began
  for (std::size_t i = 0; i < messages.size(); ++i) {
    writeMessage(w, messages[i]);
    if (messages[i].role != Role::kTool) {
      results = i + 1;
    } else if (i + 1 == messages.size() || messages[i + 1].role != Role::kTool) {
      writeResultImages(w, std::span(messages).subspan(results, i + 1 - results));
    }
  }
}

void writeToolArray(Writer& w, const std::vector<ToolSchema>& tools) {
  w.StartArray();
  for (const ToolSchema& tool : tools) {
    w.StartObject();
    writeField(w, "type", "function");
    w.Key("function");
    w.StartObject();
    writeField(w, "name", tool.name);
    writeField(w, "description", tool.description);
    w.Key("parameters");
    w.Raw(tool.parameters_json.empty() ? kEmptyParameters : tool.parameters_json,
          rapidjson::kObjectType);
    w.EndObject();
    w.EndObject();
  }
  w.EndArray();
}

Status writeResponseFormat(Writer& w, const std::string& schema_json) {
  rapidjson::Document schema;
  schema.Parse(schema_json.data(), schema_json.size());
  if (schema.HasParseError() || !schema.IsObject()) {
    return Status::error("model: response schema is not a JSON object");
  }
  w.Key("response_format");
  w.StartObject();
  writeField(w, "type", "json_schema");
  w.Key("json_schema");
  w.StartObject();
  writeField(w, "name", "tool_call");
  w.Key("schema");
  schema.Accept(w);
  w.Key("strict");
  w.Bool(true);
  w.EndObject();
  w.EndObject();
  return Status::ok();
}

void writeStreamFields(Writer& w, bool stream) {
  w.Key("stream");
  w.Bool(stream);
  if (!stream) return;
  w.Key("stream_options");
  w.StartObject();
  w.Key("include_usage");
  w.Bool(true);
  w.EndObject();
}

ToolCall readToolCall(const rapidjson::Value& call) {
  ToolCall out;
  out.id = json::string(call, "id");
  if (out.id.empty()) out.id = generateCallId();
  if (const rapidjson::Value* function = json::member(call, "function")) {
    out.name = json::string(*function, "name");
    const rapidjson::Value* args = json::member(*function, "arguments");
    if (args != nullptr && args->IsString()) {
      out.arguments.assign(args->GetString(), args->GetStringLength());
    } else if (args != nullptr) {  // some servers send the arguments as an object
      rapidjson::StringBuffer buffer;
      Writer writer(buffer);
      args->Accept(writer);
      out.arguments.assign(buffer.GetString(), buffer.GetSize());
    }
  }
  out.thought_signature = json::thoughtSignature(call);
  return out;
}

Status readMessage(const rapidjson::Value& message, ChatResponse* response) {
  if (!message.IsObject()) return Status::error("choices[0].message is not an object");
  ThinkFilter think;
  std::string reasoning(json::reasoning(message));
  think.feed(json::contentText(json::member(message, "content")), &response->message.content,
             &reasoning);
  think.finish(&response->message.content, &reasoning);
  response->message.reasoning = std::move(reasoning);
  const rapidjson::Value* calls = json::member(message, "tool_calls");
  if (calls == nullptr) return Status::ok();
  if (!calls->IsArray()) return Status::error("tool_calls is not an array");
  for (const auto& call : calls->GetArray()) {
    response->message.tool_calls.push_back(readToolCall(call));
  }
  return Status::ok();
}

}  // namespace

std::string encodeTools(const std::vector<ToolSchema>& tools) {
  rapidjson::StringBuffer buffer;
  Writer w(buffer);
  writeToolArray(w, tools);
  return {buffer.GetString(), buffer.GetSize()};
}

Result<std::string_view> encodeRequest(const ChatRequest& request, const RequestOptions& options) {
  // Reused per thread: a fresh buffer for every request costs more in page faults than the
  // encoding itself, and handing out a view instead of a copy saves copying the body (bench_host
  // under callgrind: 0.22M of a turn's 4.42M instructions).
  thread_local rapidjson::StringBuffer buffer;
  const bool last_was_large = buffer.GetSize() > kKeptBufferBytes;  // an image-sized request
  buffer.Clear();
  if (last_was_large) buffer.ShrinkToFit();  // its memory is not kept
  Writer w(buffer);
  w.StartObject();
  writeField(w, "model", options.model);
  w.Key("messages");
  w.StartArray();
  if (request.system != nullptr) writeMessage(w, *request.system);
  if (request.messages != nullptr) writeMessages(w, *request.messages);
  w.EndArray();
  if (request.tools && !request.tools->empty()) {
    w.Key("tools");
    if (options.encoded_tools != nullptr) {
      w.Raw(*options.encoded_tools, rapidjson::kArrayType);
    } else {
      writeToolArray(w, *request.tools);
    }
    writeField(w, "tool_choice", "auto");
  }
  if (!request.response_schema_json.empty()) {
    Status status = writeResponseFormat(w, request.response_schema_json);
    if (!status.isOk()) return status;
  }
  int max_tokens = options.max_tokens;
  if (request.max_tokens > 0 && (max_tokens == 0 || request.max_tokens < max_tokens)) {
    max_tokens = request.max_tokens;
  }
  if (max_tokens > 0) {
    w.Key("max_tokens");
    w.Int(max_tokens);
  }
  writeStreamFields(w, options.stream);
  w.EndObject();
  return std::string_view(buffer.GetString(), buffer.GetSize());
}

Result<ChatResponse> parseResponse(std::string_view body) {
  rapidjson::Document doc;
  doc.Parse(body.data(), body.size());
  if (doc.HasParseError()) {
    return Status::error(std::string("not JSON (") +
                         rapidjson::GetParseError_En(doc.GetParseError()) + " at offset " +
                         std::to_string(doc.GetErrorOffset()) + ")");
  }
  std::string api_error = apiErrorMessage(body);
  if (!api_error.empty()) return Status::error("error: " + api_error);
  const rapidjson::Value* choices = json::member(doc, "choices");
  if (choices == nullptr || !choices->IsArray() || choices->Empty()) {
    return Status::error("no choices in the reply");
  }
  const rapidjson::Value& choice = (*choices)[0];
  ChatResponse response;
  response.message.role = Role::kAssistant;
  const rapidjson::Value* message = json::member(choice, "message");
  if (message == nullptr) return Status::error("choices[0] has no message");
  Status status = readMessage(*message, &response);
  if (!status.isOk()) return status;
  response.finish_reason = json::string(choice, "finish_reason");
  json::readUsage(doc, &response.usage);
  response.model = std::string(json::string(doc, "model"));
  return response;
}

void unwrapTextAnswer(ChatMessage& message) {
  rapidjson::Document doc;
  doc.Parse(message.content.data(), message.content.size());
  if (doc.HasParseError() || json::string(doc, "name") != kAnswerInText) return;
  const rapidjson::Value* arguments = json::member(doc, "arguments");
  const rapidjson::Value* text = arguments ? json::member(*arguments, "text") : nullptr;
  if (text == nullptr || !text->IsString()) return;
  message.content.assign(text->GetString(), text->GetStringLength());
}

std::string apiErrorMessage(std::string_view body) {
  rapidjson::Document doc;
  doc.Parse(body.data(), body.size());
  if (doc.HasParseError() || !doc.IsObject()) return {};
  const rapidjson::Value* error = json::member(doc, "error");
  if (error == nullptr) return {};
  if (error->IsString()) return error->GetString();
  std::string message(json::string(*error, "message"));
  return message.empty() ? std::string("unspecified error") : message;
}

std::string generateCallId() {
  thread_local std::mt19937_64 random{std::random_device{}()};
  char id[32];
  std::snprintf(id, sizeof id, "call_%016llx", static_cast<unsigned long long>(random()));
  return id;
}

}  // namespace gantry::openai
