#include "agent/prompt_budget.h"

#include "agent/prompt.h"
#include "session/history_bounds.h"
#include "session/summary.h"
#include "tools/naming.h"

namespace gantry::agent {
namespace {

std::size_t textTokens(const std::string& text) { return (text.size() + 3) / 4; }

std::string count(std::size_t n, const char* what) {
  return std::to_string(n) + " " + what + (n == 1 ? "" : "s");
}

}  // namespace

PartSize historySize(const std::vector<ChatMessage>& messages) {
  return {messages.size(), static_cast<std::size_t>(session::estimateTokens(messages))};
}

PartSize schemaSize(const std::vector<ToolSchema>& schemas) {
  PartSize size{schemas.size(), 0};
  for (const auto& s : schemas) {
    size.est_tokens += tools::estimateTokens(s.name, s.description, s.parameters_json);
  }
  return size;
}

std::vector<BudgetRow> promptBudget(const StandingPrompt& prompt) {
  std::vector<BudgetRow> rows;
  rows.push_back({"persona", textTokens(prompt.persona), ""});
  rows.push_back({"tool framing", textTokens(kToolFraming), ""});
  if (prompt.memory_framing) rows.push_back({"memory framing", textTokens(kMemoryFraming), ""});
  if (!prompt.listing.empty()) rows.push_back({"server listing", textTokens(prompt.listing), ""});
  for (const auto& [server, size] : prompt.schemas) {
    rows.push_back({"schemas " + (server.empty() ? std::string("built-in") : server),
                    size.est_tokens, count(size.count, "tool")});
  }
  const std::string summary =
      prompt.summary.empty() ? std::string() : session::summaryBlock(prompt.summary);
  rows.push_back({"summary", textTokens(summary), ""});
  rows.push_back({"history", prompt.history.est_tokens, count(prompt.history.count, "message")});
  std::size_t total = 0;
  for (const auto& row : rows) total += row.est_tokens;
  rows.push_back({"total", total, ""});
  if (prompt.last_turn_sent > 0) {
    const std::size_t percent = prompt.last_turn_cached * 100 / prompt.last_turn_sent;
    rows.push_back(
        {"cache could keep, last turn", prompt.last_turn_cached,
         std::to_string(percent) + "% of " + std::to_string(prompt.last_turn_sent) + " sent"});
  }
  return rows;
}

std::string budgetText(const std::vector<BudgetRow>& rows, int64_t reported_prompt_tokens) {
  std::string text = "Standing prompt of this chat (estimates, chars/4):";
  for (const auto& row : rows) {
    text += "\n" + row.part + ": ~" + std::to_string(row.est_tokens) + " est. tokens";
    if (!row.detail.empty()) text += " (" + row.detail + ")";
  }
  text += reported_prompt_tokens > 0
              ? "\nlast turn: " + std::to_string(reported_prompt_tokens) +
                    " prompt tokens reported by the endpoint (all its model calls)"
              : "\nlast turn: no prompt tokens reported by the endpoint";
  return text;
}

std::string budgetTsv(const std::vector<BudgetRow>& rows, int64_t reported_prompt_tokens) {
  std::string text;
  for (const auto& row : rows) {
    text += row.part + "\t" + std::to_string(row.est_tokens) + "\t" + row.detail + "\n";
  }
  if (reported_prompt_tokens > 0) {
    text += "reported\t" + std::to_string(reported_prompt_tokens) + "\tlast turn, all calls\n";
  }
  return text;
}

}  // namespace gantry::agent
