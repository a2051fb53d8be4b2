#pragma once
// Reads a gantry data directory's record with the SQLite library directly (read-only, while
// gantry runs or after it died), for the reliability suite's invariants.

#include <cstdint>
#include <string>
#include <vector>

namespace gantry::reliability {

/// Where in its round a kill landed, read from the record once the process has died.
enum class Phase {
  kBeforeReceive,  ///< the message was not in the inbox yet (before or during the poll)
  kReceived,       ///< in the inbox, not yet recorded by a turn
  kModel,          ///< recorded; the model had not answered
  kTool,           ///< a tool call was running
  kAfterResult,    ///< results recorded, no reply yet
  kSending,        ///< the reply recorded, its delivery not confirmed
  kAnswered,       ///< the reply's delivery confirmed
};
constexpr int kPhases = 7;
const char* phaseName(Phase phase);

class RecordProbe {
 public:
  explicit RecordProbe(std::string db_path) : path_(std::move(db_path)) {}

  /// The phase of the round whose message contains marker.
  Phase phaseOf(const std::string& marker) const;
  /// Rows that must be gone once every message is answered: pending inbox rows, running
  /// tool calls, open turns, outbox rows undelivered or failed.
  int64_t stuckRows() const;
  /// PRAGMA integrity_check's answer ("ok" when sound).
  std::string integrity() const;
  /// Every tool call id in the record.
  std::vector<std::string> recordedCallIds() const;

 private:
  std::vector<std::string> column(const std::string& sql) const;
  int64_t number(const std::string& sql) const;
  std::string path_;
};

}  // namespace gantry::reliability
