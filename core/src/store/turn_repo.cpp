#include "store/turn_repo.h"

#include "store/db.h"
#include "store/record_rows.h"

using Poco::Data::Keywords::into;
using Poco::Data::Keywords::now;
using Poco::Data::Keywords::use;

namespace gantry::store {
namespace {

void closeTurn(Db& db, int64_t session_id) {
  Query(db.prepared, "DELETE FROM open_turns WHERE session_id = ?").bind(session_id).run();
}

}  // namespace

Result<int64_t> TurnRepo::open(int64_t session_id, const ChatMessage& user,
                               const std::vector<int64_t>& inbox_ids) {
  return locked(store_, "store", "open turn", [&](Poco::Data::Session&) -> Result<int64_t> {
    Db& db = store_.db();
    Transaction transaction(db);
    int64_t id = insertMessage(db, session_id, user);
    int64_t at = nowMs();
    for (int64_t inbox_id : inbox_ids) {
      Query(db.prepared, "UPDATE inbox SET handled_at = ?, images = '' WHERE id = ?")
          .bind(at)
          .bind(inbox_id)
          .run();
    }
    // One turn at a time per chat: a row still here belongs to a turn that ended without
    // closing (a store error), and the new message supersedes it.
    Query(db.prepared,
          "INSERT OR REPLACE INTO open_turns(session_id, user_message_id, opened_at) "
          "VALUES (?, ?, ?)")
        .bind(session_id)
        .bind(id)
        .bind(at)
        .run();
    transaction.commit();
    return id;
  });
}

Status TurnRepo::openContinuation(int64_t session_id) {
  return locked(store_, "store", "open continuation", [&](Poco::Data::Session& s) -> Status {
    int64_t session = session_id, at = nowMs();
    s << "INSERT OR REPLACE INTO open_turns(session_id, user_message_id, opened_at) "
         "VALUES (?, COALESCE((SELECT MAX(id) FROM messages WHERE session_id = ? AND "
         "role = 'user'), 0), ?)",
        use(session), use(session), use(at), now;
    return Status::ok();
  });
}

Result<int64_t> TurnRepo::closeWithReply(int64_t session_id, const std::string& chat_id,
                                         const ChatMessage& reply, const TurnCost* cost,
                                         const StoredBudget* standing) {
  return locked(store_, "store", "record reply", [&](Poco::Data::Session&) -> Result<int64_t> {
    Transaction transaction(store_.db());
    int64_t message = insertMessage(store_.db(), session_id, reply);
    int64_t outbox = insertOutbox(store_.db(), chat_id, message, reply.content);
    closeTurn(store_.db(), session_id);
    if (cost) writeTurn(store_.db(), *cost, standing);
    transaction.commit();
    return outbox;
  });
}

Result<int64_t> TurnRepo::closeWithNotice(int64_t session_id, const std::string& chat_id,
                                          const std::string& text) {
  return locked(store_, "store", "record notice", [&](Poco::Data::Session&) -> Result<int64_t> {
    Transaction transaction(store_.db());
    int64_t outbox = insertOutbox(store_.db(), chat_id, 0, text);
    closeTurn(store_.db(), session_id);
    transaction.commit();
    return outbox;
  });
}

Status TurnRepo::close(int64_t session_id) {
  return locked(store_, "store", "close turn", [&](Poco::Data::Session&) -> Status {
    closeTurn(store_.db(), session_id);
    return Status::ok();
  });
}

Status TurnRepo::markResumed(int64_t session_id) {
  return locked(store_, "store", "mark turn resumed", [&](Poco::Data::Session& s) -> Status {
    int64_t session = session_id, at = nowMs();
    s << "UPDATE open_turns SET resumed_at = ? WHERE session_id = ?", use(at), use(session), now;
    return Status::ok();
  });
}

Result<int64_t> TurnRepo::closeWaitingOnApprovals() {
  return locked(
      store_, "store", "close turns waiting on approvals",
      [&](Poco::Data::Session& s) -> Result<int64_t> {
        Poco::Data::Statement statement(s);
        statement << "DELETE FROM open_turns WHERE EXISTS (SELECT 1 FROM tool_calls t "
                     "JOIN sessions n ON n.id = t.session_id "
                     "JOIN approvals a ON a.call_id = t.call_id AND a.chat_id = n.chat_id "
                     "WHERE t.session_id = open_turns.session_id "
                     "AND t.message_id > open_turns.user_message_id "
                     "AND a.follow_up = 'parked')";
        return static_cast<int64_t>(statement.execute());
      });
}

Result<std::vector<OpenTurn>> TurnRepo::openTurns() {
  return locked(store_, "store", "open turns",
                [&](Poco::Data::Session& s) -> Result<std::vector<OpenTurn>> {
                  std::vector<int64_t> sessions, messages, resumed;
                  std::vector<std::string> chats, texts;
                  s << "SELECT o.session_id, s.chat_id, o.user_message_id, "
                       "COALESCE(m.content, ''), o.resumed_at IS NOT NULL FROM open_turns o "
                       "JOIN sessions s ON s.id = o.session_id "
                       "LEFT JOIN messages m ON m.id = o.user_message_id "
                       "ORDER BY o.opened_at, o.session_id",
                      into(sessions), into(chats), into(messages), into(texts), into(resumed), now;
                  std::vector<OpenTurn> out;
                  for (std::size_t i = 0; i < sessions.size(); ++i) {
                    out.push_back({sessions[i], chats[i], messages[i], texts[i], resumed[i] != 0});
                  }
                  return out;
                });
}

}  // namespace gantry::store
