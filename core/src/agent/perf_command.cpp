#include "agent/perf_command.h"

#include "log/log.h"
#include "store/stats_repo.h"

namespace gantry::agent {
namespace {

std::string firstToken(int64_t ms) {
  return ms < 0 ? "not streamed" : "first token " + std::to_string(ms) + " ms";
}

std::string promptTokens(int64_t tokens) {
  return tokens > 0 ? std::to_string(tokens) + " prompt tokens" : "no prompt tokens reported";
}

std::string perfLine(const store::TurnPerf& t) {
  return log::isoUtc(t.started_at) + " " + t.outcome + ": model " + std::to_string(t.model_ms) +
         " ms (" + firstToken(t.first_token_ms) + "), tools " + std::to_string(t.tool_ms) +
         " ms, " + std::to_string(t.model_calls) + " rounds, " + promptTokens(t.prompt_tokens);
}

}  // namespace

std::string perfText(store::Store& store) {
  auto turns = store::StatsRepo(store).recentTurns(kPerfTurns);
  if (!turns.isOk()) return "⚠️ " + turns.status().message();
  if (turns->empty()) return "No turns yet.";
  std::string text = "Last " + std::to_string(turns->size()) +
                     " turns, newest first (rounds = model calls; prompt tokens as the "
                     "endpoint reported them):";
  for (const auto& turn : turns.value()) text += "\n" + perfLine(turn);
  return text;
}

int perfCommand(store::Store& store, const std::vector<std::string>& args, std::ostream& out,
                std::ostream& err) {
  if (!args.empty()) return err << "usage: gantry perf\n", 2;
  auto turns = store::StatsRepo(store).recentTurns(kPerfTurns);
  if (!turns.isOk()) return err << "gantry perf: " << turns.status().message() << "\n", 1;
  for (const auto& t : turns.value()) {
    out << log::isoUtc(t.started_at) << '\t' << t.chat_id << '\t' << t.outcome << '\t' << t.model_ms
        << '\t' << t.first_token_ms << '\t' << t.tool_ms << '\t' << t.total_ms << '\t'
        << t.model_calls << '\t' << t.tool_calls << '\t' << t.prompt_tokens << '\n';
  }
  return 0;
}

}  // namespace gantry::agent
