#include "agent/cache_estimate.h"

#include <functional>
#include <string>
#include <string_view>

#include "session/history_bounds.h"
#include "tools/naming.h"

namespace gantry::agent {
namespace {

std::size_t mix(std::size_t seed, std::string_view bytes) {
  return seed * 1099511628211ULL ^ std::hash<std::string_view>{}(bytes);
}

PrintPart messagePart(const ChatMessage& m) {
  std::size_t hash = mix(static_cast<std::size_t>(m.role), m.content);
  hash = mix(mix(hash, m.tool_call_id), m.name);
  for (const auto& call : m.tool_calls)
    hash = mix(mix(mix(hash, call.id), call.name), call.arguments);
  return {hash, static_cast<std::size_t>(session::estimateTokens(m))};
}

}  // namespace

PromptPrint promptPrint(const ChatRequest& request) {
  PromptPrint print;
  PrintPart tools;
  if (request.tools) {
    for (const auto& schema : *request.tools) {
      tools.hash =
          mix(mix(mix(tools.hash, schema.name), schema.description), schema.parameters_json);
      tools.est_tokens +=
          tools::estimateTokens(schema.name, schema.description, schema.parameters_json);
    }
  }
  print.push_back(tools);
  if (request.system) print.push_back(messagePart(*request.system));
  if (request.messages) {
    for (const auto& m : *request.messages) print.push_back(messagePart(m));
  }
  return print;
}

std::size_t keptTokens(const PromptPrint& before, const PromptPrint& now) {
  std::size_t kept = 0;
  for (std::size_t i = 0; i < before.size() && i < now.size(); ++i) {
    if (before[i].hash != now[i].hash) break;
    kept += now[i].est_tokens;
  }
  return kept;
}

std::size_t printTokens(const PromptPrint& print) {
  std::size_t total = 0;
  for (const auto& part : print) total += part.est_tokens;
  return total;
}

}  // namespace gantry::agent
