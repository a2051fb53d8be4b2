#pragma once
/// The heartbeat row `gantry status` reads: written at boot and every HEARTBEAT_SECONDS,
/// with the channel's last good receive and the last model call's outcome.

#include <cstdint>
#include <optional>
#include <string>

#include "store/store.h"

namespace gantry::store {

struct Heartbeat {
  int64_t pid = 0;
  int64_t started_at = 0;
  int64_t beat_at = 0;
  int64_t period_s = 0;
  std::string channel;
  int64_t last_receive_ok_at = 0;  ///< 0 when never
  int64_t last_model_at = 0;       ///< 0 when never
  std::string last_model_outcome;
  int64_t send_failing_since = 0;  ///< 0 when sends work
  std::string send_error;          ///< what began the failing run of sends
};

/// Whether the heartbeat belongs to a running instance: it has not stopped cleanly and beat
/// within 3 periods of now (ms).
bool isLive(const Heartbeat& heartbeat, int64_t now);

class HeartbeatRepo {
 public:
  explicit HeartbeatRepo(Store& store) : store_(store) {}
  /// Starts a new process's row (replacing the previous process's).
  Status boot(int64_t pid, int64_t period_s, const std::string& channel);
  /// Refreshes beat_at, last_receive_ok_at when receive_ok_at > 0, and the send side
  /// (send_failing_since 0: sends work). Error texts are kept redacted, as in the log.
  Status beat(int64_t receive_ok_at, int64_t send_failing_since = 0,
              const std::string& send_error = {});
  // The last model call's outcome is written with its usage row (UsageRepo::record).
  /// A clean exit: the row stays for inspection but no longer counts as alive.
  Status stopped();
  Result<std::optional<Heartbeat>> read();

 private:
  Store& store_;
};

}  // namespace gantry::store
