#pragma once
/// The standing prompt of a chat broken down (/tokens, `gantry tokens`): what every call of
/// its next turn starts with, part by part. Every count is an estimate (chars/4) and is
/// labelled so; the endpoint's own count of the last turn is shown beside it. Pure.

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "gantry/message.h"
#include "store/prompt_budget_repo.h"

namespace gantry::agent {

/// How much of a kind a part holds and its estimated (chars/4) tokens.
struct PartSize {
  std::size_t count = 0;
  std::size_t est_tokens = 0;
};

/// The parts, as the next turn would send them.
struct StandingPrompt {
  std::string persona;
  std::string listing;  ///< the lazy tool servers' listing ("" when eager)
  std::string summary;
  PartSize history;  ///< messages
  /// Published tools by server; "" holds the built-ins.
  std::map<std::string, PartSize> schemas;
  /// The chat's last turn, all its model calls: the estimated tokens sent, and of them those
  /// a prompt cache could keep from the request before (agent/cache_estimate.h).
  std::size_t last_turn_sent = 0;
  std::size_t last_turn_cached = 0;
  bool memory_framing = false;  ///< the system message frames the `[memory]` block
};

/// The size of messages as the history part counts it.
PartSize historySize(const std::vector<ChatMessage>& messages);

/// The size of schemas as a schemas part counts it.
PartSize schemaSize(const std::vector<ToolSchema>& schemas);

/// One part: a label, its estimated tokens, and a detail such as "12 messages".
using BudgetRow = store::PromptPart;

/// The rows, in prompt order, then the total, then (once a turn has run) what the prompt
/// cache could keep of the last turn.
std::vector<BudgetRow> promptBudget(const StandingPrompt& prompt);

/// The /tokens reply. reported_prompt_tokens: the last turn's prompt tokens as the endpoint
/// reported them (0: none reported).
std::string budgetText(const std::vector<BudgetRow>& rows, int64_t reported_prompt_tokens);

/// One row per line, tab-separated: part, est. tokens, detail; then `reported` when known.
std::string budgetTsv(const std::vector<BudgetRow>& rows, int64_t reported_prompt_tokens);

}  // namespace gantry::agent
