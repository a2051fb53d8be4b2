#include "store/outbox_repo.h"

#include <sqlite3.h>

#include "store/db.h"
#include "store/record_rows.h"

using Poco::Data::Keywords::into;
using Poco::Data::Keywords::now;
using Poco::Data::Keywords::use;

namespace gantry::store {
namespace {

const char* stateName(Delivery how) {
  switch (how) {
    case Delivery::kDelivered: return "delivered";
    case Delivery::kFailed: return "failed";
    case Delivery::kDropped: return "dropped";
  }
  return "failed";
}

}  // namespace

int64_t insertOutbox(Db& db, const std::string& chat_id, int64_t message_id,
                     const std::string& text) {
  Query(db.prepared,
        "INSERT INTO outbox(chat_id, message_id, text, created_at) "
        "VALUES (?, NULLIF(?, 0), ?, ?)")
      .bind(chat_id)
      .bind(message_id)
      .bind(text)
      .bind(nowMs())
      .run();
  return static_cast<int64_t>(sqlite3_last_insert_rowid(db.prepared.db()));
}

Result<std::vector<OutboxItem>> OutboxRepo::pending() {
  return locked(store_, "store", "outbox pending",
                [&](Poco::Data::Session& s) -> Result<std::vector<OutboxItem>> {
                  std::vector<int64_t> ids, attempted;
                  std::vector<std::string> chats, texts;
                  s << "SELECT id, chat_id, text, state = 'sending' FROM outbox "
                       "WHERE state IN ('pending', 'sending') ORDER BY id",
                      into(ids), into(chats), into(texts), into(attempted), now;
                  std::vector<OutboxItem> out;
                  for (std::size_t i = 0; i < ids.size(); ++i) {
                    out.push_back({ids[i], chats[i], texts[i], attempted[i] != 0});
                  }
                  return out;
                });
}

Status OutboxRepo::markSending(int64_t id) {
  if (id == 0) return Status::ok();
  return locked(store_, "store", "outbox mark sending", [&](Poco::Data::Session&) -> Status {
    Query(store_.db().prepared,
          "UPDATE outbox SET state = 'sending' WHERE id = ? AND state = 'pending'")
        .bind(id)
        .run();
    return Status::ok();
  });
}

Status OutboxRepo::markDone(int64_t id, Delivery how) {
  if (id == 0) return Status::ok();
  return locked(store_, "store", "outbox mark done", [&](Poco::Data::Session&) -> Status {
    Query(store_.db().prepared,
          "UPDATE outbox SET state = ?, done_at = ?, text = '' WHERE id = ? AND state IN "
          "('pending', 'sending')")
        .bind(stateName(how))
        .bind(nowMs())
        .bind(id)
        .run();
    return Status::ok();
  });
}

}  // namespace gantry::store
