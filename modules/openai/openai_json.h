#pragma once
/// Small RapidJSON readers shared by the response and stream parsers (module-internal).

#include <algorithm>
#include <cstdint>
#include <string>
#include <string_view>

#include "gantry/provider.h"
#include "rapidjson/document.h"

namespace gantry::openai::json {

/// The member key of obj when obj is an object and the member is present and not null.
inline const rapidjson::Value* member(const rapidjson::Value& obj, const char* key) {
  if (!obj.IsObject()) return nullptr;
  auto it = obj.FindMember(key);
  if (it == obj.MemberEnd() || it->value.IsNull()) return nullptr;
  return &it->value;
}

/// The string member key of obj, or "" when absent or not a string.
inline std::string_view string(const rapidjson::Value& obj, const char* key) {
  const rapidjson::Value* value = member(obj, key);
  if (value == nullptr || !value->IsString()) return {};
  return {value->GetString(), value->GetStringLength()};
}

/// The token count member key of obj, or 0 when it is absent, negative or beyond 2^53 (a
/// count no endpoint reports; converting an out-of-range double would be undefined).
inline std::int64_t tokenCount(const rapidjson::Value& obj, const char* key) {
  constexpr double kLargest = 9007199254740992.0;  // 2^53: every smaller count is exact
  const rapidjson::Value* value = member(obj, key);
  if (value == nullptr || !value->IsNumber()) return 0;
  if (value->IsInt64()) return std::max<std::int64_t>(value->GetInt64(), 0);
  const double count = value->GetDouble();
  return count >= 0 && count <= kLargest ? static_cast<std::int64_t>(count) : 0;
}

/// Reads a usage object (absent: left unchanged): prompt and completion tokens, and the
/// prompt tokens served from cache — OpenAI's prompt_tokens_details.cached_tokens, or
/// DeepSeek's prompt_cache_hit_tokens.
inline void readUsage(const rapidjson::Value& root, Usage* usage) {
  const rapidjson::Value* value = member(root, "usage");
  if (value == nullptr || !value->IsObject()) return;
  usage->prompt_tokens = tokenCount(*value, "prompt_tokens");
  usage->completion_tokens = tokenCount(*value, "completion_tokens");
  const rapidjson::Value* details = member(*value, "prompt_tokens_details");
  usage->cached_tokens = details != nullptr && details->IsObject()
                             ? tokenCount(*details, "cached_tokens")
                             : tokenCount(*value, "prompt_cache_hit_tokens");
}

/// Reasoning text of a message or delta: reasoning_content (DeepSeek, vLLM, llama.cpp) or
/// reasoning (Ollama, OpenRouter).
inline std::string_view reasoning(const rapidjson::Value& message) {
  std::string_view text = string(message, "reasoning_content");
  return text.empty() ? string(message, "reasoning") : text;
}

/// Gemini's extra_content.google.thought_signature of a tool call, or "".
inline std::string_view thoughtSignature(const rapidjson::Value& call) {
  const rapidjson::Value* extra = member(call, "extra_content");
  const rapidjson::Value* google = extra ? member(*extra, "google") : nullptr;
  return google ? string(*google, "thought_signature") : std::string_view();
}

/// Visible text of a content value: a string, or the text parts of a content array.
inline std::string contentText(const rapidjson::Value* content) {
  if (content == nullptr) return {};
  if (content->IsString()) return {content->GetString(), content->GetStringLength()};
  std::string text;
  if (!content->IsArray()) return text;
  for (const auto& part : content->GetArray()) {
    if (string(part, "type") == "text") text += string(part, "text");
  }
  return text;
}

}  // namespace gantry::openai::json
