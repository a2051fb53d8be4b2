#include "store/watch_repo.h"

#include <Poco/Data/Session.h>
#include <Poco/Nullable.h>
#include <Poco/Tuple.h>

#include "store/db.h"

using Poco::Data::Keywords::into;
using Poco::Data::Keywords::now;
using Poco::Data::Keywords::use;

namespace gantry::store {
namespace {

using WatchRow =
    Poco::Tuple<Poco::Int64, std::string, std::string, std::string, Poco::Int64, std::string,
                std::string, std::string, std::string, Poco::Int64, NullableInt, NullableInt,
                Poco::Int64, Poco::Int64, std::string, Poco::Int64>;

constexpr const char* kColumns =
    "SELECT id, chat_id, tool, arguments, every_seconds, schedule, prompt, items_pointer, "
    "id_pointer, created_at, next_poll_at, last_poll_at, primed, failures, last_error, "
    "failure_reported FROM watches ";

Watch toWatch(const WatchRow& row) {
  Watch w;
  w.id = row.get<0>();
  w.chat_id = row.get<1>();
  w.tool = row.get<2>();
  w.arguments = row.get<3>();
  w.every_seconds = row.get<4>();
  w.schedule = row.get<5>();
  w.prompt = row.get<6>();
  w.items_pointer = row.get<7>();
  w.id_pointer = row.get<8>();
  w.created_at = row.get<9>();
  w.next_poll_at = toOptional(row.get<10>());
  w.last_poll_at = toOptional(row.get<11>());
  w.primed = row.get<12>() != 0;
  w.failures = static_cast<int>(row.get<13>());
  w.last_error = row.get<14>();
  w.failure_reported = row.get<15>() != 0;
  return w;
}

Status failure(const std::string& what, const Poco::Exception& e) {
  return Status::error("store: watch " + what + ": " + e.displayText());
}

// Caller holds the store's lock.
int64_t insert(Poco::Data::Session& session, const Watch& w) {
  std::string chat = w.chat_id, tool = w.tool, args = w.arguments, schedule = w.schedule,
              prompt = w.prompt, items = w.items_pointer, id = w.id_pointer;
  Poco::Int64 every = w.every_seconds, created = w.created_at;
  NullableInt next = toNullable(w.next_poll_at);
  session << "INSERT INTO watches(chat_id, tool, arguments, every_seconds, schedule, prompt, "
             "items_pointer, id_pointer, created_at, next_poll_at) "
             "VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
      use(chat), use(tool), use(args), use(every), use(schedule), use(prompt), use(items), use(id),
      use(created), use(next), now;
  return lastInsertId(session);
}

}  // namespace

Result<std::optional<int64_t>> WatchRepo::addWithinLimit(const Watch& watch, int64_t max_watches) {
  try {
    std::lock_guard lock(store_.mutex());
    Poco::Int64 n = 0;
    store_.db().session << "SELECT count(*) FROM watches", into(n), now;
    if (n >= max_watches) return std::optional<int64_t>();
    return std::optional<int64_t>(insert(store_.db().session, watch));
  } catch (const Poco::Exception& e) {
    return failure("add", e);
  }
}

// `where_order` holds at most one `?`, bound to text or number, whichever is given.
Result<std::vector<Watch>> WatchRepo::select(const std::string& where_order,
                                             const std::optional<std::string>& text,
                                             const std::optional<int64_t>& number) {
  try {
    std::lock_guard lock(store_.mutex());
    std::vector<WatchRow> rows;
    Poco::Data::Statement stmt(store_.db().session);
    stmt << kColumns << where_order, into(rows);
    std::string text_value = text.value_or("");
    Poco::Int64 number_value = number.value_or(0);
    if (text) stmt.addBind(use(text_value));
    if (number) stmt.addBind(use(number_value));
    stmt.execute();
    std::vector<Watch> watches;
    watches.reserve(rows.size());
    for (const auto& row : rows) watches.push_back(toWatch(row));
    return watches;
  } catch (const Poco::Exception& e) {
    return failure("select", e);
  }
}

Result<std::vector<Watch>> WatchRepo::list(const std::optional<std::string>& chat_id) {
  if (chat_id) return select("WHERE chat_id = ? ORDER BY id", chat_id, std::nullopt);
  return select("ORDER BY id", std::nullopt, std::nullopt);
}

Result<std::optional<Watch>> WatchRepo::get(int64_t id) {
  Result<std::vector<Watch>> watches = select("WHERE id = ?", std::nullopt, id);
  if (!watches.isOk()) return watches.status();
  if (watches->empty()) return std::optional<Watch>();
  return std::optional<Watch>(watches->front());
}

Result<bool> WatchRepo::remove(int64_t id) {
  try {
    std::lock_guard lock(store_.mutex());
    Transaction tx(store_.db());
    Poco::Int64 i = id;
    store_.db().session << "DELETE FROM watch_seen WHERE watch_id = ?", use(i), now;
    Poco::Data::Statement stmt(store_.db().session);
    stmt << "DELETE FROM watches WHERE id = ?", use(i);
    const bool removed = stmt.execute() > 0;
    tx.commit();
    return removed;
  } catch (const Poco::Exception& e) {
    return failure("remove " + std::to_string(id), e);
  }
}

Result<std::vector<Watch>> WatchRepo::due(int64_t now_ms) {
  return select("WHERE next_poll_at IS NOT NULL AND next_poll_at <= ? ORDER BY next_poll_at, id",
                std::nullopt, now_ms);
}

Result<std::optional<Watch>> WatchRepo::nextToPoll() {
  Result<std::vector<Watch>> watches =
      select("WHERE next_poll_at IS NOT NULL ORDER BY next_poll_at, id LIMIT 1", std::nullopt,
             std::nullopt);
  if (!watches.isOk()) return watches.status();
  if (watches->empty()) return std::optional<Watch>();
  return std::optional<Watch>(watches->front());
}

Status WatchRepo::saveState(const Watch& w) {
  try {
    std::lock_guard lock(store_.mutex());
    Poco::Int64 id = w.id, primed = w.primed ? 1 : 0, failures = w.failures,
                reported = w.failure_reported ? 1 : 0;
    NullableInt next = toNullable(w.next_poll_at), last = toNullable(w.last_poll_at);
    std::string error = w.last_error;
    store_.db().session << "UPDATE watches SET next_poll_at = ?, last_poll_at = ?, primed = ?, "
                           "failures = ?, last_error = ?, failure_reported = ? WHERE id = ?",
        use(next), use(last), use(primed), use(failures), use(error), use(reported), use(id), now;
    return Status::ok();
  } catch (const Poco::Exception& e) {
    return failure("save state of " + std::to_string(w.id), e);
  }
}

Result<std::vector<std::string>> WatchRepo::unseen(int64_t watch_id,
                                                   const std::vector<std::string>& ids) {
  try {
    std::lock_guard lock(store_.mutex());
    std::vector<std::string> fresh;
    for (const std::string& id : ids) {
      Poco::Int64 watch = watch_id, n = 0;
      std::string item = id;
      store_.db().session << "SELECT count(*) FROM watch_seen WHERE watch_id = ? AND item_id = ?",
          use(watch), use(item), into(n), now;
      if (n == 0) fresh.push_back(id);
    }
    return fresh;
  } catch (const Poco::Exception& e) {
    return failure("unseen items of " + std::to_string(watch_id), e);
  }
}

Status WatchRepo::markSeen(int64_t watch_id, const std::vector<std::string>& ids, int64_t now_ms,
                           std::size_t keep) {
  try {
    std::lock_guard lock(store_.mutex());
    auto& session = store_.db().session;
    Transaction tx(store_.db());
    Poco::Int64 watch = watch_id, at = now_ms, limit = static_cast<Poco::Int64>(keep);
    for (const std::string& id : ids) {
      std::string item = id;
      session << "INSERT INTO watch_seen(watch_id, item_id, seen_at) VALUES (?, ?, ?) "
                 "ON CONFLICT(watch_id, item_id) DO UPDATE SET seen_at = excluded.seen_at",
          use(watch), use(item), use(at), now;
    }
    session << "DELETE FROM watch_seen WHERE watch_id = ? AND rowid NOT IN (SELECT rowid FROM "
               "watch_seen WHERE watch_id = ? ORDER BY seen_at DESC, rowid DESC LIMIT ?)",
        use(watch), use(watch), use(limit), now;
    tx.commit();
    return Status::ok();
  } catch (const Poco::Exception& e) {
    return failure("mark items seen of " + std::to_string(watch_id), e);
  }
}

Status WatchRepo::forget(int64_t watch_id, const std::vector<std::string>& ids) {
  try {
    std::lock_guard lock(store_.mutex());
    Transaction tx(store_.db());
    for (const std::string& id : ids) {
      Poco::Int64 watch = watch_id;
      std::string item = id;
      store_.db().session << "DELETE FROM watch_seen WHERE watch_id = ? AND item_id = ?",
          use(watch), use(item), now;
    }
    tx.commit();
    return Status::ok();
  } catch (const Poco::Exception& e) {
    return failure("forget items of " + std::to_string(watch_id), e);
  }
}

Result<int64_t> WatchRepo::seenCount(int64_t watch_id) {
  try {
    std::lock_guard lock(store_.mutex());
    Poco::Int64 watch = watch_id, n = 0;
    store_.db().session << "SELECT count(*) FROM watch_seen WHERE watch_id = ?", use(watch),
        into(n), now;
    return n;
  } catch (const Poco::Exception& e) {
    return failure("count seen items of " + std::to_string(watch_id), e);
  }
}

}  // namespace gantry::store
