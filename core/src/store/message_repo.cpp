#include "store/message_repo.h"

#include <Poco/Data/RecordSet.h>
#include <Poco/JSON/Array.h>
#include <Poco/JSON/Object.h>
#include <Poco/JSON/Parser.h>
#include <Poco/Nullable.h>
#include <sqlite3.h>

#include <sstream>

#include "gantry/text/context_blocks.h"
#include "store/db.h"
#include "store/record_rows.h"

using Poco::Data::Keywords::into;
using Poco::Data::Keywords::now;
using Poco::Data::Keywords::use;

namespace gantry::store {
namespace {

// What the model reads for a call a crash cut short. It may have taken effect, so it is
// never run again; the model decides what to tell the owner.
constexpr const char* kCrashResult =
    "error: interrupted by a restart, not re-run; whether it took effect is unknown";

Role roleFrom(const std::string& name) {
  if (name == "system") return Role::kSystem;
  if (name == "assistant") return Role::kAssistant;
  if (name == "tool") return Role::kTool;
  return Role::kUser;
}

template <class Fn>
auto guarded(const char* what, Fn&& fn) -> decltype(fn()) {
  try {
    return fn();
  } catch (const Poco::Exception& e) {
    return Status::error(std::string("store: ") + what + ": " + e.displayText());
  }
}

// What the search index leaves out of a user message (the view message_text): the context
// it was sent with, in characters, as SQL's substr() counts them.
int64_t contextChars(std::string_view content) {
  return static_cast<int64_t>(text::utf8Chars(content.substr(0, text::contextBytes(content))));
}

}  // namespace

int64_t insertMessage(Db& db, int64_t session_id, const ChatMessage& m) {
  Query insert(db.prepared,
               "INSERT INTO messages(session_id, role, content, tool_calls, tool_call_id, name, "
               "reasoning, image_count, created_at, context_chars) "
               "VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)");
  insert.bind(session_id).bind(roleName(m.role)).bind(m.content);
  insert.bindOrNull(m.tool_calls.empty() ? "" : encodeToolCalls(m.tool_calls));
  insert.bindOrNull(m.tool_call_id).bindOrNull(m.name).bindOrNull(m.reasoning);
  insert.bind(static_cast<int64_t>(m.images.size())).bind(nowMs());
  insert.bind(m.role == Role::kUser ? contextChars(m.content) : 0);
  insert.run();
  return sqlite3_last_insert_rowid(db.prepared.db());
}

std::string encodeToolCalls(const std::vector<ToolCall>& calls) {
  Poco::JSON::Array array;
  for (const auto& call : calls) {
    Poco::JSON::Object object(Poco::JSON_PRESERVE_KEY_ORDER);
    object.set("id", call.id);
    object.set("name", call.name);
    object.set("arguments", call.arguments);
    if (!call.thought_signature.empty()) object.set("thought_signature", call.thought_signature);
    array.add(object);
  }
  std::ostringstream out;
  array.stringify(out);
  return out.str();
}

std::vector<ToolCall> decodeToolCalls(const std::string& json) {
  std::vector<ToolCall> calls;
  if (json.empty()) return calls;
  auto array = Poco::JSON::Parser().parse(json).extract<Poco::JSON::Array::Ptr>();
  for (std::size_t i = 0; i < array->size(); ++i) {
    auto object = array->getObject(static_cast<unsigned>(i));
    calls.push_back({object->optValue<std::string>("id", ""),
                     object->optValue<std::string>("name", ""),
                     object->optValue<std::string>("arguments", ""),
                     object->optValue<std::string>("thought_signature", "")});
  }
  return calls;
}

namespace {

int64_t createSession(PreparedCache& cache, const std::string& chat_id) {
  const int64_t at = nowMs();
  Query insert(cache, "INSERT INTO sessions(chat_id, created_at, updated_at) VALUES (?, ?, ?)");
  insert.bind(chat_id).bind(at).bind(at).run();
  return static_cast<int64_t>(sqlite3_last_insert_rowid(cache.db()));
}

// The session's summary, collapse mark and history, oldest first.
void readSession(PreparedCache& cache, OpenedSession& opened) {
  {
    Query find(cache, "SELECT summary, collapsed_through FROM sessions WHERE id = ?");
    if (find.bind(opened.id).step()) {
      opened.summary = find.text(0);
      opened.collapsed_through = find.integer(1);
    }
  }
  Query select(cache,
               "SELECT id, role, content, COALESCE(tool_calls, ''), COALESCE(tool_call_id, ''), "
               "COALESCE(name, ''), COALESCE(reasoning, '') FROM messages "
               "WHERE session_id = ? AND in_history = 1 ORDER BY id");
  select.bind(opened.id);
  while (select.step()) {
    ChatMessage m;
    m.role = roleFrom(select.text(1));
    m.content = select.text(2);
    m.tool_calls = decodeToolCalls(select.text(3));
    m.tool_call_id = select.text(4);
    m.name = select.text(5);
    m.reasoning = select.text(6);
    opened.history.push_back(std::move(m));
    opened.ids.push_back(select.integer(0));
  }
}

}  // namespace

Result<int64_t> MessageRepo::session(const std::string& chat_id) {
  return guarded("session", [&]() -> Result<int64_t> {
    std::lock_guard lock(store_.mutex());
    auto& cache = store_.db().prepared;
    {
      Query find(cache, "SELECT id FROM sessions WHERE chat_id = ?");
      if (find.bind(chat_id).step()) return find.integer(0);
    }
    return createSession(cache, chat_id);
  });
}

// One read transaction instead of one a query: SQLite's file locks are taken once.
Result<OpenedSession> MessageRepo::open(const std::string& chat_id) {
  return guarded("open session", [&]() -> Result<OpenedSession> {
    std::lock_guard lock(store_.mutex());
    Db& db = store_.db();
    OpenedSession opened;
    Transaction reads(db, Transaction::Kind::kRead);
    {
      Query find(db.prepared, "SELECT id FROM sessions WHERE chat_id = ?");
      if (find.bind(chat_id).step()) opened.id = find.integer(0);
    }
    if (opened.id != 0) readSession(db.prepared, opened);
    reads.commit();
    // A new chat: its session is written after the reads, in a transaction of its own.
    if (opened.id == 0) opened.id = createSession(db.prepared, chat_id);
    return opened;
  });
}

Result<OpenedSession> MessageRepo::load(int64_t session_id) {
  return guarded("load session", [&]() -> Result<OpenedSession> {
    std::lock_guard lock(store_.mutex());
    OpenedSession opened;
    opened.id = session_id;
    Transaction reads(store_.db(), Transaction::Kind::kRead);
    readSession(store_.db().prepared, opened);
    reads.commit();
    return opened;
  });
}

Result<int64_t> MessageRepo::append(int64_t session_id, const ChatMessage& message) {
  return guarded("append message", [&]() -> Result<int64_t> {
    std::lock_guard lock(store_.mutex());
    return insertMessage(store_.db(), session_id, message);
  });
}

Status MessageRepo::setContent(int64_t message_id, const std::string& content) {
  return guarded("set content", [&]() -> Status {
    std::lock_guard lock(store_.mutex());
    Query(store_.db().prepared,
          "UPDATE messages SET content = ?, context_chars = CASE role WHEN 'user' THEN ? ELSE 0 "
          "END WHERE id = ?")
        .bind(content)
        .bind(contextChars(content))
        .bind(message_id)
        .run();
    return Status::ok();
  });
}

Result<std::vector<ChatMessage>> MessageRepo::history(int64_t session_id) {
  auto opened = load(session_id);
  if (!opened.isOk()) return opened.status();
  return std::move(opened->history);
}

Status MessageRepo::clearHistory(int64_t session_id) {
  return guarded("clear history", [&]() -> Status {
    std::lock_guard lock(store_.mutex());
    int64_t at = nowMs();
    store_.db().session << "UPDATE messages SET in_history = 0 WHERE session_id = ?",
        use(session_id), now;
    store_.db().session << "UPDATE sessions SET summary = '', collapsed_through = 0, "
                           "updated_at = ? WHERE id = ?",
        use(at), use(session_id), now;
    return Status::ok();
  });
}

Status MessageRepo::hideMessage(int64_t message_id) {
  return guarded("hide message", [&]() -> Status {
    std::lock_guard lock(store_.mutex());
    store_.db().session << "UPDATE messages SET in_history = 0 WHERE id = ?", use(message_id), now;
    return Status::ok();
  });
}

Status MessageRepo::commitFold(const Fold& fold) {
  return guarded("fold history", [&]() -> Status {
    std::lock_guard lock(store_.mutex());
    Db& db = store_.db();
    Transaction tx(db);
    Query(db.prepared,
          "UPDATE sessions SET summary = ?, collapsed_through = MAX(collapsed_through, ?), "
          "updated_at = ? WHERE id = ?")
        .bind(fold.summary)
        .bind(fold.collapsed_through)
        .bind(nowMs())
        .bind(fold.session_id)
        .run();
    Query(db.prepared,
          "UPDATE messages SET in_history = 0 WHERE session_id = ? AND in_history = 1 AND id <= ?")
        .bind(fold.session_id)
        .bind(fold.dropped_through)
        .run();
    tx.commit();
    return Status::ok();
  });
}

Status MessageRepo::collapseThrough(int64_t session_id, int64_t message_id) {
  return guarded("collapse results", [&]() -> Status {
    std::lock_guard lock(store_.mutex());
    Query(store_.db().prepared,
          "UPDATE sessions SET collapsed_through = MAX(collapsed_through, ?) WHERE id = ?")
        .bind(message_id)
        .bind(session_id)
        .run();
    return Status::ok();
  });
}

Result<std::vector<int64_t>> MessageRepo::appendCalls(int64_t session_id,
                                                      const ChatMessage& message) {
  return guarded("record tool calls", [&]() -> Result<std::vector<int64_t>> {
    std::lock_guard lock(store_.mutex());
    auto& s = store_.db().session;
    Transaction transaction(store_.db());
    int64_t message_id = insertMessage(store_.db(), session_id, message);
    std::vector<int64_t> rows;
    for (const auto& call : message.tool_calls) {
      std::string id = call.id, name = call.name, args = call.arguments;
      int64_t at = nowMs();
      s << "INSERT INTO tool_calls(session_id, message_id, call_id, name, arguments, status, "
           "started_at) VALUES (?, ?, ?, ?, ?, 'running', ?)",
          use(session_id), use(message_id), use(id), use(name), use(args), use(at), now;
      int64_t row = 0;
      s << "SELECT last_insert_rowid()", into(row), now;
      rows.push_back(row);
    }
    transaction.commit();
    return rows;
  });
}

Result<int64_t> MessageRepo::appendResult(int64_t session_id, int64_t row_id, bool ok,
                                          const CallCost& cost, const ChatMessage& tool,
                                          const CallDecision& decision) {
  return guarded("record tool result", [&]() -> Result<int64_t> {
    std::lock_guard lock(store_.mutex());
    auto& s = store_.db().session;
    Transaction transaction(store_.db());
    std::string status = ok ? "ok" : "error", text = tool.content;
    int64_t at = nowMs();
    CallDecision d = decision;
    // Absent fields stay NULL: "no approval" is not an approval with an empty id.
    Poco::Nullable<std::string> policy, approval, by;
    Poco::Nullable<Poco::Int64> decided_at;
    if (!d.policy.empty()) policy = d.policy;
    if (!d.approval_id.empty()) approval = d.approval_id;
    if (!d.decided_by.empty()) by = d.decided_by;
    if (d.decided_at) decided_at = d.decided_at;
    Poco::Nullable<std::string> resolved;
    if (!cost.tool.empty()) resolved = cost.tool;
    Poco::Int64 dur_ms = cost.dur_ms, chars = cost.result_chars;
    s << "UPDATE tool_calls SET status = ?, result = ?, finished_at = ?, dur_ms = ?, policy = ?, "
         "approval_id = ?, decided_by = ?, decided_at = ?, tool = ?, result_chars = ? "
         "WHERE id = ?",
        use(status), use(text), use(at), use(dur_ms), use(policy), use(approval), use(by),
        use(decided_at), use(resolved), use(chars), use(row_id), now;
    const int64_t id = insertMessage(store_.db(), session_id, tool);
    transaction.commit();
    return id;
  });
}

Result<std::vector<OrphanedCall>> MessageRepo::closeOrphanedToolCalls() {
  return guarded("close orphaned tool calls", [&]() -> Result<std::vector<OrphanedCall>> {
    std::lock_guard lock(store_.mutex());
    auto& db = store_.db();
    Transaction transaction(db);
    std::vector<int64_t> rows, sessions;
    std::vector<std::string> call_ids, names;
    db.session << "SELECT id, session_id, call_id, name FROM tool_calls WHERE status = 'running' "
                  "ORDER BY id",
        into(rows), into(sessions), into(call_ids), into(names), now;
    std::vector<OrphanedCall> closed;
    for (std::size_t i = 0; i < rows.size(); ++i) {
      std::string result = kCrashResult;
      int64_t at = nowMs();
      db.session << "UPDATE tool_calls SET status = 'error', result = ?, finished_at = ? "
                    "WHERE id = ?",
          use(result), use(at), use(rows[i]), now;
      ChatMessage tool{Role::kTool, kCrashResult, {}, {}, call_ids[i], names[i], {}};
      insertMessage(db, sessions[i], tool);
      closed.push_back({sessions[i], call_ids[i], names[i]});
    }
    transaction.commit();
    return closed;
  });
}

void writeTurn(Db& db, const TurnCost& c, const StoredBudget* standing) {
  Query turn(db.prepared,
             "INSERT INTO turns(session_id, started_at, model_ms, tool_ms, total_ms, "
             "prompt_tokens, completion_tokens, outcome, first_token_ms, model_calls, "
             "tool_calls) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)");
  turn.bind(c.session_id).bind(c.started_at).bind(c.model_ms).bind(c.tool_ms);
  turn.bind(c.total_ms).bind(c.prompt_tokens).bind(c.completion_tokens).bind(c.outcome);
  turn.bind(c.first_token_ms).bind(int64_t{c.model_calls}).bind(int64_t{c.tool_calls}).run();
  for (const auto& repair : c.repairs) {
    Query row(db.prepared,
              "INSERT INTO tool_repairs(session_id, at, kind, tool) VALUES (?, ?, ?, ?)");
    row.bind(c.session_id).bind(c.started_at).bind(repair.kind).bind(repair.tool).run();
  }
  if (standing) writePromptBudget(db, *standing);
}

Status MessageRepo::recordTurn(const TurnCost& c, const StoredBudget* standing) {
  return guarded("record turn", [&]() -> Status {
    std::lock_guard lock(store_.mutex());
    Transaction transaction(store_.db());
    writeTurn(store_.db(), c, standing);
    transaction.commit();
    return Status::ok();
  });
}

Result<TurnCost> MessageRepo::lastTurn() {
  return guarded("last turn", [&]() -> Result<TurnCost> {
    std::lock_guard lock(store_.mutex());
    Poco::Data::Statement select(store_.db().session);
    select << "SELECT session_id, started_at, model_ms, tool_ms, total_ms, prompt_tokens, "
              "completion_tokens, outcome FROM turns ORDER BY id DESC LIMIT 1";
    select.execute();
    Poco::Data::RecordSet rows(select);
    if (!rows.moveFirst()) return Status::error("no turn yet");
    TurnCost t;
    t.session_id = rows.value(0).convert<int64_t>();
    t.started_at = rows.value(1).convert<int64_t>();
    t.model_ms = rows.value(2).convert<int64_t>();
    t.tool_ms = rows.value(3).convert<int64_t>();
    t.total_ms = rows.value(4).convert<int64_t>();
    t.prompt_tokens = rows.value(5).convert<int64_t>();
    t.completion_tokens = rows.value(6).convert<int64_t>();
    t.outcome = rows.value(7).convert<std::string>();
    return t;
  });
}

Result<int64_t> MessageRepo::historyCount(int64_t session_id) {
  return guarded("history count", [&]() -> Result<int64_t> {
    std::lock_guard lock(store_.mutex());
    int64_t count = 0;
    store_.db().session << "SELECT COUNT(*) FROM messages WHERE session_id = ? AND in_history = 1",
        use(session_id), into(count), now;
    return count;
  });
}

}  // namespace gantry::store
