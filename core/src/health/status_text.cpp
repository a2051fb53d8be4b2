#include "health/status_text.h"

#include "cron/cron_command.h"
#include "session/history_bounds.h"
#include "store/memory_repo.h"
#include "store/message_repo.h"
#include "store/session_repo.h"
#include "store/usage_repo.h"
#include "tools/naming.h"

namespace gantry::health {
namespace {

std::size_t schemaTokens(const ToolSchema& s) {
  return tools::estimateTokens(s.name, s.description, s.parameters_json);
}

std::size_t schemaTokens(const std::vector<ToolSchema>& schemas) {
  std::size_t tokens = 0;
  for (const auto& s : schemas) tokens += schemaTokens(s);
  return tokens;
}

std::string sessionLine(const StatusInputs& in, const std::string& chat_id) {
  store::MessageRepo messages(*in.store);
  auto session = messages.session(chat_id);
  if (!session.isOk()) return "session: unavailable (" + session.status().message() + ")";
  auto history = messages.history(session.value());
  if (!history.isOk()) return "session: unavailable";
  std::string line = "session: " + std::to_string(history->size()) + " messages, ~" +
                     std::to_string(session::estimateTokens(history.value())) +
                     " tokens (estimate)";
  auto summary = store::SessionRepo(*in.store).summary(session.value());
  if (summary.isOk() && !summary->empty()) {
    line += "\nsummary: " + summary->substr(0, 300) + (summary->size() > 300 ? "…" : "");
  }
  return line;
}

std::string memoryLine(const StatusInputs& in) {
  if (!in.config->memory_enabled) return "memory: off";
  if (in.config->memory_backend != "builtin") return "memory: " + in.config->memory_backend;
  store::MemoryRepo repo(*in.store);
  auto count = repo.count();
  std::string line = "memory: " + (count.isOk() ? std::to_string(count.value()) : "?") + " rows";
  auto conflicts = repo.conflicts();
  if (conflicts.isOk() && !conflicts->empty()) {
    line += "; " + std::to_string(conflicts->size()) +
            " conflicts with the persona (gantry memory list --conflicts)";
  }
  return line;
}

std::string lastTurnLine(const StatusInputs& in) {
  auto turn = store::MessageRepo(*in.store).lastTurn();
  if (!turn.isOk()) return "last turn: none yet";
  return "last turn: " + turn->outcome + ", model " + std::to_string(turn->model_ms) +
         " ms, tools " + std::to_string(turn->tool_ms) + " ms, total " +
         std::to_string(turn->total_ms) + " ms";
}

}  // namespace

std::string usageLine(const StatusInputs& in) {
  auto today = store::UsageRepo(*in.store).daily(1, store::nowMs());
  if (!today.isOk()) return "today: usage unknown (" + today.status().message() + ")";
  if (today->empty()) return "today: no model calls";
  const auto& day = today->front();
  std::string line = "today: " + std::to_string(day.calls) + " model calls, " +
                     std::to_string(day.prompt_tokens) + " prompt / " +
                     std::to_string(day.completion_tokens) + " completion tokens";
  if (day.cached_tokens > 0) line += ", " + std::to_string(day.cached_tokens) + " cached";
  if (day.estimated_calls > 0) line += " (" + std::to_string(day.estimated_calls) + " estimated)";
  return line + " (UTC day)";
}

ToolList published(const StatusInputs& in, const std::string& chat_id) {
  return in.publication ? in.publication->schemas(chat_id) : in.catalog->schemas();
}

std::string publishedCount(const StatusInputs& in, const std::vector<ToolSchema>& schemas) {
  return std::to_string(schemas.size()) + " published of " +
         std::to_string(in.catalog->schemas()->size());
}

std::string statusText(const StatusInputs& in, const std::string& chat_id) {
  const ToolList list = published(in, chat_id);
  const auto& schemas = *list;
  std::string text = "model: " + in.provider->model() + " (" + in.config->provider + ")\n";
  text += "uptime: " + formatDuration(store::nowMs() - in.started_ms) + "\n";
  text += sessionLine(in, chat_id) + "\n";
  text += "tools: " + publishedCount(in, schemas) + ", ~" + std::to_string(schemaTokens(schemas)) +
          " tokens published (estimate)\n";
  text += memoryLine(in) + "\n";
  text += lastTurnLine(in) + "\n";
  text += usageLine(in);
  if (in.zone) text += "\n" + cron::cronStatusLine(*in.store, *in.zone);
  text += "\n" + sandboxLine(*in.config);
  return text;
}

std::string sandboxLine(const config::Config& config) {
  return config.mcp_sandbox ? "mcp sandbox: on (stdio servers run inside Landlock)"
                            : "mcp sandbox: OFF (MCP_SANDBOX=off): every MCP server is trusted "
                              "with every secret of this instance";
}

std::string toolsText(const StatusInputs& in, const std::string& chat_id) {
  const ToolList list = published(in, chat_id);
  const auto& schemas = *list;
  std::string text = "Tools: " + publishedCount(in, schemas) + ", ~" +
                     std::to_string(schemaTokens(schemas)) + " tokens published (estimate):";
  for (const auto& s : schemas) {
    text += "\n- " + s.name + " (~" + std::to_string(schemaTokens(s)) + " tokens)";
  }
  if (!in.publication || in.publication->mode() != tools::PublishMode::kLazy) return text;
  for (const auto& server : in.publication->servers()) {
    if (in.publication->published(chat_id, server.name)) continue;
    text += "\nnot published: " + server.name + " (" + std::to_string(server.tools) + " tools, ~" +
            std::to_string(server.est_tokens) + " tokens; mcp_enable)";
  }
  return text;
}

}  // namespace gantry::health
