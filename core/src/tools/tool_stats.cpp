#include "tools/tool_stats.h"

#include "store/stats_repo.h"

namespace gantry::tools {
namespace {

std::string toolLine(const store::ToolStat& t) {
  return "- " + t.tool + ": " + std::to_string(t.calls) + " calls, " + std::to_string(t.ok) +
         " ok, " + std::to_string(t.errors) + " errors, mean " + std::to_string(t.mean_ms) +
         " ms, max " + std::to_string(t.max_ms) + " ms, " + std::to_string(t.result_chars) +
         " result chars";
}

}  // namespace

std::string toolStatsText(store::Store& store) {
  store::StatsRepo stats(store);
  auto tools = stats.toolStats();
  auto repairs = stats.repairs();
  if (!tools.isOk()) return "⚠️ " + tools.status().message();
  if (!repairs.isOk()) return "⚠️ " + repairs.status().message();
  std::string text = tools->empty() ? "No tool calls yet." : "Tool calls (all recorded):";
  for (const auto& tool : tools.value()) text += "\n" + toolLine(tool);
  text += "\nRepairs of what the model sent:";
  for (const auto& repair : repairs.value()) {
    text += " " + repair.kind + " " + std::to_string(repair.count) + ",";
  }
  text.pop_back();
  return text;
}

int toolStatsCommand(store::Store& store, const std::vector<std::string>& args, std::ostream& out,
                     std::ostream& err) {
  if (!args.empty()) return err << "usage: gantry toolstats\n", 2;
  store::StatsRepo stats(store);
  auto tools = stats.toolStats();
  auto repairs = stats.repairs();
  if (!tools.isOk()) return err << "gantry toolstats: " << tools.status().message() << "\n", 1;
  if (!repairs.isOk()) return err << "gantry toolstats: " << repairs.status().message() << "\n", 1;
  for (const auto& t : tools.value()) {
    out << "tool\t" << t.tool << '\t' << t.calls << '\t' << t.ok << '\t' << t.errors << '\t'
        << t.mean_ms << '\t' << t.max_ms << '\t' << t.result_chars << '\n';
  }
  for (const auto& r : repairs.value()) out << "repair\t" << r.kind << '\t' << r.count << '\n';
  return 0;
}

}  // namespace gantry::tools
