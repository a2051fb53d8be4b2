#include "reliability/record_probe.h"

#include <sqlite3.h>

namespace gantry::reliability {

const char* phaseName(Phase phase) {
  static const char* const kNames[kPhases] = {"before receive", "received",     "model call",
                                              "tool running",   "after result", "reply sending",
                                              "answered"};
  return kNames[static_cast<int>(phase)];
}

std::vector<std::string> RecordProbe::column(const std::string& sql) const {
  sqlite3* db = nullptr;
  std::vector<std::string> out;
  if (sqlite3_open_v2(path_.c_str(), &db, SQLITE_OPEN_READONLY, nullptr) == SQLITE_OK) {
    sqlite3_busy_timeout(db, 5000);
    sqlite3_stmt* stmt = nullptr;
    if (sqlite3_prepare_v2(db, sql.c_str(), -1, &stmt, nullptr) == SQLITE_OK) {
      while (sqlite3_step(stmt) == SQLITE_ROW) {
        const unsigned char* text = sqlite3_column_text(stmt, 0);
        out.emplace_back(text ? reinterpret_cast<const char*>(text) : "");
      }
    } else {
      out.push_back(std::string("error: ") + sqlite3_errmsg(db));
    }
    sqlite3_finalize(stmt);
  }
  sqlite3_close(db);
  return out;
}

int64_t RecordProbe::number(const std::string& sql) const {
  auto rows = column(sql);
  if (rows.empty()) return -1;
  try {
    return std::stoll(rows[0]);
  } catch (const std::exception&) {
    return -1;  // an error text: never a count a caller expects
  }
}

// Rounds run one after another in one chat, so everything recorded after the round's user
// message belongs to the round.
Phase RecordProbe::phaseOf(const std::string& marker) const {
  std::string like = "'%" + marker + "%'";
  if (number("SELECT COUNT(*) FROM inbox WHERE text LIKE " + like) == 0) {
    return Phase::kBeforeReceive;
  }
  int64_t user = number(
      "SELECT COALESCE(MAX(id), 0) FROM messages WHERE role = 'user' AND "
      "content LIKE " +
      like);
  if (user == 0) return Phase::kReceived;
  std::string after = " AND id > " + std::to_string(user);
  // The reply, or the notice sent instead, names the round's marker until it is confirmed.
  if (number("SELECT COUNT(*) FROM outbox WHERE state IN ('pending', 'sending') AND text LIKE " +
             like) > 0) {
    return Phase::kSending;
  }
  // A turn is open from its user message until its answer is queued.
  if (number("SELECT COUNT(*) FROM open_turns") == 0) return Phase::kAnswered;
  if (number("SELECT COUNT(*) FROM tool_calls WHERE status = 'running' AND message_id > " +
             std::to_string(user)) > 0) {
    return Phase::kTool;
  }
  if (number("SELECT COUNT(*) FROM messages WHERE role = 'tool'" + after) > 0) {
    return Phase::kAfterResult;
  }
  return Phase::kModel;
}

int64_t RecordProbe::stuckRows() const {
  return number(
      "SELECT (SELECT COUNT(*) FROM inbox WHERE handled_at IS NULL) + "
      "(SELECT COUNT(*) FROM tool_calls WHERE status = 'running') + "
      "(SELECT COUNT(*) FROM open_turns) + "
      "(SELECT COUNT(*) FROM outbox WHERE state IN ('pending', 'sending', 'failed'))");
}

std::string RecordProbe::integrity() const {
  auto rows = column("PRAGMA integrity_check");
  return rows.empty() ? "no answer" : rows[0];
}

std::vector<std::string> RecordProbe::recordedCallIds() const {
  return column("SELECT call_id FROM tool_calls");
}

}  // namespace gantry::reliability
