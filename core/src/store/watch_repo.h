#pragma once
/// Watches and the item ids each has seen (tables watches, watch_seen; DESIGN 7).

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "store/store.h"

namespace gantry::store {

/// One watch: an MCP tool the host polls without the model. Timestamps are Unix ms.
struct Watch {
  int64_t id = 0;
  std::string chat_id;        ///< the chat that created it; new items' turns push there
  std::string tool;           ///< the published tool name ("feeds__list")
  std::string arguments;      ///< canonical JSON object
  int64_t every_seconds = 0;  ///< the interval; 0 when schedule is set
  std::string schedule;       ///< a cron schedule (cron::parseSchedule); "" with every_seconds
  std::string prompt;
  std::string items_pointer;  ///< JSON pointer to the array of items; "" = found by itself
  std::string id_pointer;     ///< JSON pointer to an item's id; "" = id, guid, url, link, hash
  int64_t created_at = 0;
  std::optional<int64_t> next_poll_at;
  std::optional<int64_t> last_poll_at;
  bool primed = false;            ///< the first poll recorded what was there
  int failures = 0;               ///< failed polls in a row
  std::string last_error;         ///< of the last failed poll
  bool failure_reported = false;  ///< the owner was told of the failures in a row
};

/// Thread-safe (every call takes the store's lock). Failures come back as error values
/// naming the operation; nothing throws.
class WatchRepo {
 public:
  explicit WatchRepo(Store& store) : store_(store) {}

  /// Inserts a watch unless `max_watches` exist already (checked and inserted under one
  /// lock); nullopt when the limit is reached.
  Result<std::optional<int64_t>> addWithinLimit(const Watch& watch, int64_t max_watches);
  /// Every watch by id, or only those of `chat_id`.
  Result<std::vector<Watch>> list(const std::optional<std::string>& chat_id = std::nullopt);
  Result<std::optional<Watch>> get(int64_t id);
  /// Deletes a watch and its seen ids; false when there was none with that id.
  Result<bool> remove(int64_t id);
  /// Watches whose next poll is at or before now_ms, earliest first.
  Result<std::vector<Watch>> due(int64_t now_ms);
  /// The watch polled next, if any has a next poll.
  Result<std::optional<Watch>> nextToPoll();
  /// Writes the poll state: next_poll_at, last_poll_at, primed, failures, last_error,
  /// failure_reported (the rest never changes).
  Status saveState(const Watch& watch);

  /// Those of `ids` the watch has not seen, in the given order.
  Result<std::vector<std::string>> unseen(int64_t watch_id, const std::vector<std::string>& ids);
  /// Records `ids` as seen at now_ms (those seen before are seen again), then keeps only the
  /// `keep` most recently seen of the watch. One transaction.
  Status markSeen(int64_t watch_id, const std::vector<std::string>& ids, int64_t now_ms,
                  std::size_t keep);
  /// Forgets `ids` (a turn that never started: they count as new again).
  Status forget(int64_t watch_id, const std::vector<std::string>& ids);
  Result<int64_t> seenCount(int64_t watch_id);

 private:
  Result<std::vector<Watch>> select(const std::string& where_order,
                                    const std::optional<std::string>& text,
                                    const std::optional<int64_t>& number);
  Store& store_;
};

}  // namespace gantry::store
