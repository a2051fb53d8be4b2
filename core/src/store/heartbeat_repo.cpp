#include "store/heartbeat_repo.h"

#include <Poco/Data/RecordSet.h>

#include "log/log.h"
#include "store/db.h"
#include "store/record_rows.h"

using Poco::Data::Keywords::now;
using Poco::Data::Keywords::use;

namespace gantry::store {

Status HeartbeatRepo::boot(int64_t pid, int64_t period_s, const std::string& channel) {
  try {
    std::lock_guard lock(store_.mutex());
    int64_t at = nowMs();
    std::string ch = channel;
    store_.db().session << "INSERT OR REPLACE INTO heartbeat(id, pid, started_at, beat_at, "
                           "period_s, channel) VALUES (1, ?, ?, ?, ?, ?)",
        use(pid), use(at), use(at), use(period_s), use(ch), now;
    return Status::ok();
  } catch (const Poco::Exception& e) {
    return Status::error("store: heartbeat: " + e.displayText());
  }
}

Status HeartbeatRepo::beat(int64_t receive_ok_at, int64_t send_failing_since,
                           const std::string& send_error) {
  try {
    std::lock_guard lock(store_.mutex());
    int64_t at = nowMs();
    std::string error = log::redact(send_error);  // platform error text may carry a token
    store_.db().session << "UPDATE heartbeat SET beat_at = ?, last_receive_ok_at = "
                           "CASE WHEN ? > 0 THEN ? ELSE last_receive_ok_at END, "
                           "send_failing_since = ?, send_error = ? WHERE id = 1",
        use(at), use(receive_ok_at), use(receive_ok_at), use(send_failing_since), use(error), now;
    return Status::ok();
  } catch (const Poco::Exception& e) {
    return Status::error("store: heartbeat: " + e.displayText());
  }
}

void writeModelOutcome(Db& db, const std::string& outcome, int64_t at) {
  Query(db.prepared, "UPDATE heartbeat SET last_model_at = ?, last_model_outcome = ? WHERE id = 1")
      .bind(at)
      .bind(log::redact(outcome))  // an endpoint's error text may echo a key
      .run();
}

Status HeartbeatRepo::stopped() {
  try {
    std::lock_guard lock(store_.mutex());
    store_.db().session << "UPDATE heartbeat SET beat_at = 0 WHERE id = 1", now;
    return Status::ok();
  } catch (const Poco::Exception& e) {
    return Status::error("store: heartbeat: " + e.displayText());
  }
}

bool isLive(const Heartbeat& heartbeat, int64_t now) {
  return heartbeat.beat_at != 0 && now - heartbeat.beat_at <= 3 * heartbeat.period_s * 1000;
}

Result<std::optional<Heartbeat>> HeartbeatRepo::read() {
  try {
    std::lock_guard lock(store_.mutex());
    Poco::Data::Statement select(store_.db().session);
    select
        << "SELECT pid, started_at, beat_at, period_s, channel, COALESCE(last_receive_ok_at, 0), "
           "COALESCE(last_model_at, 0), COALESCE(last_model_outcome, ''), "
           "COALESCE(send_failing_since, 0), COALESCE(send_error, '') FROM heartbeat "
           "WHERE id = 1";
    select.execute();
    Poco::Data::RecordSet rows(select);
    if (!rows.moveFirst()) return std::optional<Heartbeat>();
    Heartbeat h;
    h.pid = rows.value(0).convert<int64_t>();
    h.started_at = rows.value(1).convert<int64_t>();
    h.beat_at = rows.value(2).convert<int64_t>();
    h.period_s = rows.value(3).convert<int64_t>();
    h.channel = rows.value(4).convert<std::string>();
    h.last_receive_ok_at = rows.value(5).convert<int64_t>();
    h.last_model_at = rows.value(6).convert<int64_t>();
    h.last_model_outcome = rows.value(7).convert<std::string>();
    h.send_failing_since = rows.value(8).convert<int64_t>();
    h.send_error = rows.value(9).convert<std::string>();
    return std::optional<Heartbeat>(h);
  } catch (const Poco::Exception& e) {
    return Status::error("store: heartbeat: " + e.displayText());
  }
}

}  // namespace gantry::store
