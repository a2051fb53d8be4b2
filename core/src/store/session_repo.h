#pragma once
/// Per-chat sessions (the sessions table) and their rolling summary (sessions.summary,
/// DESIGN 4.2). Messages of a session belong to the message repository.

#include <cstdint>
#include <string>
#include <vector>

#include "gantry/status.h"
#include "store/store.h"

namespace gantry::store {

/// A session's summary with the time it last changed.
struct SessionSummary {
  int64_t session_id = 0;
  std::string chat_id;
  std::string summary;
  int64_t updated_at = 0;
};

/// Repository over the sessions table. Thread-safe (takes store.mutex()).
class SessionRepo {
 public:
  explicit SessionRepo(Store& store) : store_(store) {}

  /// The id of the chat's session, creating the row on first use.
  Result<int64_t> open(const std::string& chat_id);
  /// The session's rolling summary ("" when none or the session is unknown).
  Result<std::string> summary(int64_t session_id);
  /// Replaces the session's rolling summary ("" clears it, as /new does).
  Status setSummary(int64_t session_id, const std::string& summary);
  /// Non-empty summaries changed after since_ms, newest first, at most limit (consolidation
  /// input).
  Result<std::vector<SessionSummary>> recentSummaries(int64_t since_ms, int limit);

 private:
  Store& store_;
};

}  // namespace gantry::store
