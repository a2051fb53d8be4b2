#include "store/stats_repo.h"

#include <Poco/Data/Session.h>
#include <Poco/Tuple.h>

#include <filesystem>
#include <map>

#include "store/db.h"

using Poco::Data::Keywords::into;
using Poco::Data::Keywords::now;
using Poco::Data::Keywords::use;

namespace gantry::store {
namespace {

using Int = Poco::Int64;

int64_t fileBytes(const std::string& path) {
  std::error_code ec;
  auto size = std::filesystem::file_size(path, ec);
  return ec ? 0 : static_cast<int64_t>(size);
}

}  // namespace

const std::vector<std::string>& repairKinds() {
  static const std::vector<std::string> kKinds = {"name_repaired", "server_enabled_by_call",
                                                  "unknown_tool",  "constrained_retry",
                                                  "printed_call",  "think_promoted"};
  return kKinds;
}

Result<std::vector<TurnPerf>> StatsRepo::recentTurns(int limit) {
  return locked(
      store_, "stats", "turns", [&](Poco::Data::Session& session) -> Result<std::vector<TurnPerf>> {
        std::vector<Poco::Tuple<Int, std::string, Int, Int, Int, Int, Int, Int, Int, std::string>>
            rows;
        session << "SELECT t.started_at, COALESCE(s.chat_id, ''), t.model_ms, "
                   "t.first_token_ms, t.tool_ms, t.total_ms, t.model_calls, "
                   "t.tool_calls, t.prompt_tokens, t.outcome FROM turns t "
                   "LEFT JOIN sessions s ON s.id = t.session_id "
                   "ORDER BY t.id DESC LIMIT ?",
            use(limit), into(rows), now;
        std::vector<TurnPerf> out;
        out.reserve(rows.size());
        for (const auto& r : rows) {
          out.push_back({r.get<0>(), r.get<1>(), r.get<2>(), r.get<3>(), r.get<4>(), r.get<5>(),
                         r.get<6>(), r.get<7>(), r.get<8>(), r.get<9>()});
        }
        return out;
      });
}

Result<std::vector<ToolStat>> StatsRepo::toolStats() {
  return locked(
      store_, "stats", "tools", [&](Poco::Data::Session& session) -> Result<std::vector<ToolStat>> {
        std::vector<Poco::Tuple<std::string, Int, Int, Int, Int, Int, Int>> rows;
        session << "SELECT tool, count(*), sum(status = 'ok'), sum(status = 'error'), "
                   "CAST(COALESCE(avg(dur_ms), 0) AS INTEGER), COALESCE(max(dur_ms), 0), "
                   "COALESCE(sum(result_chars), 0) FROM tool_calls "
                   "WHERE tool IS NOT NULL AND status <> 'running' "
                   "GROUP BY tool ORDER BY count(*) DESC, tool",
            into(rows), now;
        std::vector<ToolStat> out;
        out.reserve(rows.size());
        for (const auto& r : rows) {
          out.push_back(
              {r.get<0>(), r.get<1>(), r.get<2>(), r.get<3>(), r.get<4>(), r.get<5>(), r.get<6>()});
        }
        return out;
      });
}

Result<std::vector<RepairCount>> StatsRepo::repairs() {
  return locked(store_, "stats", "repairs",
                [&](Poco::Data::Session& session) -> Result<std::vector<RepairCount>> {
                  std::vector<std::string> kinds;
                  std::vector<Int> counts;
                  session << "SELECT kind, count(*) FROM tool_repairs GROUP BY kind", into(kinds),
                      into(counts), now;
                  std::map<std::string, int64_t> found;
                  for (std::size_t i = 0; i < kinds.size(); ++i) found[kinds[i]] = counts[i];
                  std::vector<RepairCount> out;
                  out.reserve(repairKinds().size());
                  for (const auto& kind : repairKinds()) out.push_back({kind, found[kind]});
                  return out;
                });
}

Result<MemoryStats> StatsRepo::memory(int64_t now_ms) {
  auto stats =
      locked(store_, "stats", "memory", [&](Poco::Data::Session& session) -> Result<MemoryStats> {
        MemoryStats out;
        Int at = now_ms;
        for (const char* kind : {"fact", "preference", "person", "episode", "insight"}) {
          Int n = 0;
          std::string k = kind;
          session << "SELECT count(*) FROM memory WHERE kind = ?", use(k), into(n), now;
          out.by_kind.emplace_back(kind, n);
        }
        Int superseded = 0, expired = 0, active = 0, conflicts = 0, backlog = 0;
        session << "SELECT count(*) FROM memory WHERE superseded_by IS NOT NULL", into(superseded),
            now;
        session << "SELECT count(*) FROM memory WHERE superseded_by IS NULL AND expires_at IS NOT "
                   "NULL AND expires_at <= ?",
            use(at), into(expired), now;
        session << "SELECT count(*) FROM memory WHERE superseded_by IS NULL AND (expires_at IS "
                   "NULL OR expires_at > ?)",
            use(at), into(active), now;
        session << "SELECT count(*) FROM memory_conflicts WHERE resolved = 0", into(conflicts), now;
        session << "SELECT count(*) FROM memory WHERE kind = 'episode' AND consolidated = 0 AND "
                   "superseded_by IS NULL AND (expires_at IS NULL OR expires_at > ?)",
            use(at), into(backlog), now;
        out.active = active;
        out.expired = expired;
        out.superseded = superseded;
        out.conflicts = conflicts;
        out.backlog = backlog;
        return out;
      });
  if (stats.isOk()) {
    stats->database_bytes = fileBytes(store_.path()) + fileBytes(store_.path() + "-wal");
  }
  return stats;
}

}  // namespace gantry::store
