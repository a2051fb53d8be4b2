#include "memory/memory_stats.h"

#include "store/stats_repo.h"

namespace gantry::memory {
namespace {

std::string megabytes(int64_t bytes) {
  const int64_t tenths = (bytes * 10 + 524288) / 1048576;
  return std::to_string(tenths / 10) + "." + std::to_string(tenths % 10) + " MB";
}

}  // namespace

std::string memStatsText(store::Store& store) {
  auto stats = store::StatsRepo(store).memory(store::nowMs());
  if (!stats.isOk()) return "⚠️ " + stats.status().message();
  const auto& m = stats.value();
  std::string text = "Memory rows by kind:";
  for (const auto& [kind, rows] : m.by_kind) text += " " + kind + " " + std::to_string(rows) + ",";
  text.pop_back();
  text += "\nactive " + std::to_string(m.active) + ", expired " + std::to_string(m.expired) +
          ", superseded " + std::to_string(m.superseded);
  text += "\nconflicts with the persona: " + std::to_string(m.conflicts) + " unresolved";
  text += "\nconsolidation backlog: " + std::to_string(m.backlog) + " episodes";
  text += "\ndatabase: " + megabytes(m.database_bytes) + " (" + std::to_string(m.database_bytes) +
          " bytes with its WAL)";
  return text;
}

int memStatsCommand(store::Store& store, const std::vector<std::string>& args, std::ostream& out,
                    std::ostream& err) {
  if (!args.empty()) return err << "usage: gantry memstats\n", 2;
  auto stats = store::StatsRepo(store).memory(store::nowMs());
  if (!stats.isOk()) return err << "gantry memstats: " << stats.status().message() << "\n", 1;
  const auto& m = stats.value();
  for (const auto& [kind, rows] : m.by_kind) out << "kind\t" << kind << '\t' << rows << '\n';
  out << "state\tactive\t" << m.active << "\nstate\texpired\t" << m.expired
      << "\nstate\tsuperseded\t" << m.superseded << "\nconflicts\tunresolved\t" << m.conflicts
      << "\nconsolidation\tbacklog\t" << m.backlog << "\ndatabase\tbytes\t" << m.database_bytes
      << '\n';
  return 0;
}

}  // namespace gantry::memory
