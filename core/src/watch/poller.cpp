#include "watch/poller.h"

#include <algorithm>
#include <exception>
#include <set>

#include "cron/schedule.h"
#include "log/log.h"
#include "watch/watch_message.h"

namespace gantry::watch {
namespace {

constexpr std::chrono::milliseconds kMaxSleep = std::chrono::minutes(1);
constexpr std::size_t kMaxErrorChars = 300;

std::vector<std::string> idsOf(const std::vector<Item>& items) {
  std::vector<std::string> ids;
  ids.reserve(items.size());
  for (const Item& item : items) ids.push_back(item.id);
  return ids;
}

std::string cut(const std::string& text) {
  return text.size() <= kMaxErrorChars ? text : text.substr(0, kMaxErrorChars) + "…";
}

}  // namespace

Poller::Poller(store::Store& store, cron::Zone zone, WatchOptions options, PollerHooks hooks,
               Clock clock)
    : repo_(store),
      zone_(std::move(zone)),
      options_(options),
      hooks_(std::move(hooks)),
      clock_(clock ? std::move(clock) : Clock(store::nowMs)) {}

void Poller::stop() {
  cancel_.cancel();
  ticker_.stop();
}

// To the next watch's poll, at most a minute (a clock set forward is caught up within it);
// nullopt, wait for watchesChanged(), when no watch has a next poll.
std::optional<std::chrono::milliseconds> Poller::untilNextPoll(int polled) {
  Result<std::optional<store::Watch>> next = repo_.nextToPoll();
  if (!next.isOk()) {
    log::error("watch: cannot read the next watch", {{"error", next.status().message()}});
    return kMaxSleep;
  }
  if (!next->has_value()) return std::nullopt;
  const int64_t left = next->value().next_poll_at.value_or(0) - clock_();
  if (left <= 0) return polled > 0 ? std::chrono::milliseconds(0) : kMaxSleep;
  return std::min(kMaxSleep, std::chrono::milliseconds(left));
}

int Poller::pollDue() {
  Result<std::vector<store::Watch>> due = repo_.due(clock_());
  if (!due.isOk()) {
    log::error("watch: cannot read due watches", {{"error", due.status().message()}});
    return 0;
  }
  int polled = 0;
  for (const store::Watch& w : due.value()) {
    if (ticker_.stopping()) break;
    poll(w, clock_());
    ++polled;
  }
  return polled;
}

std::optional<int64_t> Poller::regularNext(const store::Watch& w, int64_t now) const {
  const int64_t min_ms = int64_t{options_.min_seconds} * 1000;
  if (w.schedule.empty()) return now + std::max(w.every_seconds * 1000, min_ms);
  Result<cron::Schedule> schedule = cron::parseSchedule(w.schedule);
  if (!schedule.isOk()) {
    log::error("watch: invalid schedule; parked",
               {{"watch", std::to_string(w.id)}, {"error", schedule.status().message()}});
    return std::nullopt;
  }
  const int64_t slot = std::min(w.next_poll_at.value_or(now), now);
  return cron::nextRunMs(schedule.value(), std::max(now, slot + min_ms - 1), zone_.tz, slot);
}

void Poller::save(const store::Watch& w) {
  if (Status s = repo_.saveState(w); !s.isOk()) {
    log::error("watch: cannot save its state",
               {{"watch", std::to_string(w.id)}, {"error", s.message()}});
  }
}

tools::ToolResult Poller::guardedCall(const store::Watch& w) {
  try {
    return hooks_.call(w, cancel_);
  } catch (const std::exception& e) {
    return {false, std::string("the call threw: ") + e.what()};
  }
}

void Poller::poll(store::Watch w, int64_t now) {
  const std::optional<int64_t> slot = w.next_poll_at;
  w.last_poll_at = now;
  w.next_poll_at = regularNext(w, now);
  if (Status s = repo_.saveState(w); !s.isOk()) {
    log::error("watch: cannot advance; not polling it",
               {{"watch", std::to_string(w.id)}, {"error", s.message()}});
    return;
  }
  tools::ToolResult result = guardedCall(w);
  if (cancel_.cancelled()) {  // cut short by stop(): polled again at the next start
    w.next_poll_at = slot;
    return save(w);
  }
  Result<std::vector<Item>> items = result.ok
                                        ? extractItems(result.text, {w.items_pointer, w.id_pointer})
                                        : Result<std::vector<Item>>(Status::error(result.text));
  if (!items.isOk()) return failed(w, items.status().message(), now);
  log::debug("watch_polled",
             {{"watch", std::to_string(w.id)}, {"items", std::to_string(items->size())}});
  if (w.failures > 0) recovered(w);
  record(w, items.value(), now);
}

void Poller::failed(store::Watch& w, const std::string& error, int64_t now) {
  ++w.failures;
  w.last_error = cut(error);
  const int shift = std::min(w.failures - 1, 20);
  const int64_t backoff =
      std::min(int64_t{options_.min_seconds} * 1000 * (int64_t{1} << shift), kMaxBackoffMs);
  if (w.next_poll_at) w.next_poll_at = std::max(*w.next_poll_at, now + backoff);
  log::warn("watch_poll_failed", {{"watch", std::to_string(w.id)},
                                  {"tool", w.tool},
                                  {"failures", std::to_string(w.failures)},
                                  {"error", w.last_error}});
  if (w.failures >= kReportAfterFailures && !w.failure_reported) {
    w.failure_reported = true;
    std::string next = w.next_poll_at ? cron::formatLocal(*w.next_poll_at, zone_.tz) : "none";
    hooks_.notify(w.chat_id, "⚠️ Watch " + std::to_string(w.id) + " (" + w.tool + ") failed " +
                                 std::to_string(w.failures) + " polls in a row: " + w.last_error +
                                 "\nIt keeps trying, less often (next " + next + " " + zone_.name +
                                 "); you will hear once it works again. watch_list shows it.");
  }
  save(w);
}

void Poller::recovered(store::Watch& w) {
  log::info("watch_poll_recovered",
            {{"watch", std::to_string(w.id)}, {"failures", std::to_string(w.failures)}});
  if (w.failure_reported) {
    hooks_.notify(w.chat_id, "Watch " + std::to_string(w.id) + " (" + w.tool + ") works again.");
  }
  w.failures = 0;
  w.last_error.clear();
  w.failure_reported = false;
}

// Every id found is seen now; those not seen before (after the first poll) start a turn.
void Poller::record(store::Watch& w, const std::vector<Item>& items, int64_t now) {
  const std::vector<std::string> ids = idsOf(items);
  Result<std::vector<std::string>> fresh = repo_.unseen(w.id, ids);
  Status marked = fresh.isOk() ? repo_.markSeen(w.id, ids, now, kSeenKept) : fresh.status();
  if (!marked.isOk()) {
    log::error("watch: cannot record its items",
               {{"watch", std::to_string(w.id)}, {"error", marked.message()}});
    return;
  }
  const bool first = !w.primed;
  w.primed = true;
  save(w);
  if (first) {
    log::info("watch_primed",
              {{"watch", std::to_string(w.id)}, {"items", std::to_string(items.size())}});
    return;
  }
  if (fresh->empty()) return;
  runTurn(w, items, fresh.value());
}

void Poller::runTurn(const store::Watch& w, const std::vector<Item>& items,
                     const std::vector<std::string>& fresh) {
  const std::set<std::string> wanted(fresh.begin(), fresh.end());
  std::vector<Item> shown;
  for (const Item& item : items) {
    if (wanted.count(item.id) != 0) shown.push_back(item);
  }
  log::info("watch_new_items", {{"watch", std::to_string(w.id)},
                                {"chat", w.chat_id},
                                {"items", std::to_string(shown.size())}});
  TurnOutcome outcome = TurnOutcome::kRan;
  try {
    outcome = hooks_.run_turn(w, watchMessage(w.prompt, w.tool, shown));
  } catch (const std::exception& e) {
    log::error("watch_turn_threw", {{"watch", std::to_string(w.id)}, {"error", e.what()}});
  }
  if (outcome == TurnOutcome::kRan) return;
  if (outcome == TurnOutcome::kSkipped) {
    log::info("watch_turn_skipped",
              {{"watch", std::to_string(w.id)}, {"items", std::to_string(shown.size())}});
  }
  // Never shown: they are new again for the next poll (the next start's, or the first one
  // after the cap resets).
  if (Status s = repo_.forget(w.id, fresh); !s.isOk()) {
    log::error("watch: cannot forget unshown items",
               {{"watch", std::to_string(w.id)}, {"error", s.message()}});
  }
}

}  // namespace gantry::watch
