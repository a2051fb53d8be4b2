#include "store/migrations.h"

namespace gantry::store {
namespace {

// Timestamps are Unix milliseconds. The schema is documented in docs/schema.md.
constexpr std::string_view kV1 = R"sql(
CREATE TABLE sessions(
  id INTEGER PRIMARY KEY,
  chat_id TEXT NOT NULL UNIQUE,
  summary TEXT NOT NULL DEFAULT '',
  created_at INTEGER NOT NULL,
  updated_at INTEGER NOT NULL);
CREATE TABLE messages(
  id INTEGER PRIMARY KEY,
  session_id INTEGER NOT NULL REFERENCES sessions(id),
  role TEXT NOT NULL CHECK(role IN ('system','user','assistant','tool')),
  content TEXT NOT NULL,
  tool_calls TEXT,
  tool_call_id TEXT,
  name TEXT,
  reasoning TEXT,
  image_count INTEGER NOT NULL DEFAULT 0,
  in_history INTEGER NOT NULL DEFAULT 1,
  created_at INTEGER NOT NULL);
CREATE INDEX messages_session ON messages(session_id, in_history, id);
CREATE TABLE tool_calls(
  id INTEGER PRIMARY KEY,
  session_id INTEGER NOT NULL REFERENCES sessions(id),
  message_id INTEGER NOT NULL REFERENCES messages(id),
  call_id TEXT NOT NULL,
  name TEXT NOT NULL,
  arguments TEXT NOT NULL,
  status TEXT NOT NULL CHECK(status IN ('running','ok','error')),
  result TEXT,
  started_at INTEGER NOT NULL,
  finished_at INTEGER,
  dur_ms INTEGER);
CREATE INDEX tool_calls_status ON tool_calls(status);
CREATE TABLE memory(
  id INTEGER PRIMARY KEY,
  kind TEXT NOT NULL CHECK(kind IN ('fact','preference','person','episode','insight')),
  subject TEXT NOT NULL,
  content TEXT NOT NULL,
  source TEXT NOT NULL CHECK(source IN ('chat','consolidation','operator')),
  confidence REAL NOT NULL DEFAULT 1.0,
  created_at INTEGER NOT NULL,
  updated_at INTEGER NOT NULL,
  expires_at INTEGER,
  superseded_by INTEGER REFERENCES memory(id),
  consolidated INTEGER NOT NULL DEFAULT 0);
CREATE VIRTUAL TABLE memory_fts USING fts5(subject, content, content='memory', content_rowid='id');
CREATE TRIGGER memory_ai AFTER INSERT ON memory BEGIN
  INSERT INTO memory_fts(rowid, subject, content) VALUES (new.id, new.subject, new.content);
END;
CREATE TRIGGER memory_ad AFTER DELETE ON memory BEGIN
  INSERT INTO memory_fts(memory_fts, rowid, subject, content)
    VALUES ('delete', old.id, old.subject, old.content);
END;
CREATE TRIGGER memory_au AFTER UPDATE OF subject, content ON memory BEGIN
  INSERT INTO memory_fts(memory_fts, rowid, subject, content)
    VALUES ('delete', old.id, old.subject, old.content);
  INSERT INTO memory_fts(rowid, subject, content) VALUES (new.id, new.subject, new.content);
END;
CREATE TABLE memory_conflicts(
  id INTEGER PRIMARY KEY,
  memory_subject TEXT NOT NULL,
  memory_content TEXT NOT NULL,
  persona_excerpt TEXT NOT NULL,
  created_at INTEGER NOT NULL,
  resolved INTEGER NOT NULL DEFAULT 0);
CREATE TABLE kv(
  namespace TEXT NOT NULL,
  key TEXT NOT NULL,
  value TEXT NOT NULL,
  PRIMARY KEY(namespace, key));
CREATE TABLE cron_jobs(
  id INTEGER PRIMARY KEY,
  chat_id TEXT NOT NULL,
  schedule TEXT NOT NULL,
  prompt TEXT NOT NULL,
  created_at INTEGER NOT NULL,
  next_run_at INTEGER,
  last_run_at INTEGER);
CREATE TABLE cron_runs(
  id INTEGER PRIMARY KEY,
  job_id INTEGER NOT NULL,
  started_at INTEGER NOT NULL,
  finished_at INTEGER,
  outcome TEXT NOT NULL,
  detail TEXT NOT NULL DEFAULT '');
CREATE TABLE heartbeat(
  id INTEGER PRIMARY KEY CHECK(id = 1),
  pid INTEGER NOT NULL,
  started_at INTEGER NOT NULL,
  beat_at INTEGER NOT NULL,
  period_s INTEGER NOT NULL,
  channel TEXT NOT NULL,
  last_receive_ok_at INTEGER,
  last_model_at INTEGER,
  last_model_outcome TEXT);
CREATE TABLE turns(
  id INTEGER PRIMARY KEY,
  session_id INTEGER NOT NULL,
  started_at INTEGER NOT NULL,
  model_ms INTEGER NOT NULL,
  tool_ms INTEGER NOT NULL,
  total_ms INTEGER NOT NULL,
  prompt_tokens INTEGER NOT NULL,
  completion_tokens INTEGER NOT NULL,
  outcome TEXT NOT NULL);
)sql";

// Inbound messages are written on receipt and marked handled once their turn has recorded
// them, so a crash in between replays them at the next start instead of losing them.
constexpr std::string_view kV2 = R"sql(
CREATE TABLE inbox(
  id INTEGER PRIMARY KEY,
  chat_id TEXT NOT NULL,
  sender_id TEXT NOT NULL,
  sender_name TEXT NOT NULL DEFAULT '',
  message_id TEXT NOT NULL DEFAULT '',
  text TEXT NOT NULL,
  images TEXT NOT NULL DEFAULT '',
  received_at INTEGER NOT NULL,
  handled_at INTEGER);
CREATE INDEX inbox_pending ON inbox(handled_at, id);
)sql";

// Full-text search over what the user and the model said (never tool payloads): the index's
// content is a view of those rows, so a rebuild cannot pull tool results in. And one row per
// model call for `gantry usage`.
constexpr std::string_view kV3 = R"sql(
CREATE VIEW message_text AS SELECT id, content FROM messages WHERE role IN ('user','assistant');
CREATE VIRTUAL TABLE messages_fts USING fts5(content, content='message_text', content_rowid='id');
CREATE TRIGGER messages_fts_ai AFTER INSERT ON messages WHEN new.role IN ('user','assistant') BEGIN
  INSERT INTO messages_fts(rowid, content) VALUES (new.id, new.content);
END;
CREATE TRIGGER messages_fts_ad AFTER DELETE ON messages WHEN old.role IN ('user','assistant') BEGIN
  INSERT INTO messages_fts(messages_fts, rowid, content) VALUES ('delete', old.id, old.content);
END;
CREATE TRIGGER messages_fts_au AFTER UPDATE OF content ON messages
    WHEN old.role IN ('user','assistant') BEGIN
  INSERT INTO messages_fts(messages_fts, rowid, content) VALUES ('delete', old.id, old.content);
  INSERT INTO messages_fts(rowid, content) VALUES (new.id, new.content);
END;
INSERT INTO messages_fts(messages_fts) VALUES ('rebuild');
CREATE TABLE usage(
  id INTEGER PRIMARY KEY,
  at INTEGER NOT NULL,
  model TEXT NOT NULL,
  prompt_tokens INTEGER NOT NULL,
  completion_tokens INTEGER NOT NULL,
  cached_tokens INTEGER NOT NULL DEFAULT 0,
  estimated INTEGER NOT NULL,
  dur_ms INTEGER NOT NULL,
  outcome TEXT NOT NULL);
CREATE INDEX usage_at ON usage(at);
)sql";

// Approvals for `ask` tools (DESIGN 8): one row per asked call, bound to its digest, decided
// once and claimed once. follow_up says whether a turn still waits for the decision ('none'),
// the turn ended and a decision starts a continuation ('parked'), or that happened ('done').
// The tool-call row keeps the policy decision, so the record explains every refusal.
constexpr std::string_view kV4 = R"sql(
CREATE TABLE approvals(
  id TEXT PRIMARY KEY,
  chat_id TEXT NOT NULL,
  tool TEXT NOT NULL,
  call_id TEXT NOT NULL,
  arguments TEXT NOT NULL,
  digest TEXT NOT NULL,
  created_at INTEGER NOT NULL,
  expires_at INTEGER NOT NULL,
  state TEXT NOT NULL CHECK(state IN ('pending','approved','denied','expired','used')),
  decided_by TEXT NOT NULL DEFAULT '',
  decided_at INTEGER,
  follow_up TEXT NOT NULL DEFAULT 'none' CHECK(follow_up IN ('none','parked','done')));
CREATE INDEX approvals_open ON approvals(state, follow_up);
ALTER TABLE tool_calls ADD COLUMN policy TEXT;
ALTER TABLE tool_calls ADD COLUMN approval_id TEXT;
ALTER TABLE tool_calls ADD COLUMN decided_by TEXT;
ALTER TABLE tool_calls ADD COLUMN decided_at INTEGER;
)sql";

// Tasks handed over by the local API, one row per task id: the same id and body answers from
// here and never runs again, across restarts.
constexpr std::string_view kV5 = R"sql(
CREATE TABLE api_tasks(
  id TEXT PRIMARY KEY,
  body_digest TEXT NOT NULL,
  status TEXT NOT NULL CHECK(status IN ('running','done','budget_exhausted','failed','cancelled')),
  reply TEXT NOT NULL DEFAULT '',
  steps INTEGER NOT NULL DEFAULT 0,
  ms INTEGER NOT NULL DEFAULT 0,
  created_at INTEGER NOT NULL,
  finished_at INTEGER);
)sql";

// A turn is open from the user message until its reply (or the note that it failed) is
// recorded: a row left at start was cut by a crash, and the turn is continued once
// (resumed_at set), never a second time. The outbox holds what was recorded for a chat until
// the channel has delivered it, so a reply recorded but not sent before a crash is sent at the
// next start (one whose send had begun, marked as possibly repeated); its text is dropped once
// done. The inbox index finds a platform message handed
// over again after a restart.
constexpr std::string_view kV6 = R"sql(
CREATE TABLE open_turns(
  session_id INTEGER PRIMARY KEY REFERENCES sessions(id),
  user_message_id INTEGER NOT NULL,
  opened_at INTEGER NOT NULL,
  resumed_at INTEGER);
CREATE TABLE outbox(
  id INTEGER PRIMARY KEY,
  chat_id TEXT NOT NULL,
  message_id INTEGER,
  text TEXT NOT NULL,
  state TEXT NOT NULL DEFAULT 'pending'
    CHECK(state IN ('pending','sending','delivered','failed','dropped')),
  created_at INTEGER NOT NULL,
  done_at INTEGER);
CREATE INDEX outbox_pending ON outbox(state, id);
CREATE INDEX inbox_message ON inbox(chat_id, message_id);
)sql";

// What /perf, /toolstats and /tokens report, kept so `gantry perf|toolstats|tokens` (another
// process) sees the same facts: per turn the first call's time to first token and the number
// of model and tool calls; per tool call the tool it resolved to (NULL: no tool was meant) and
// the result's size before truncation; one row per repair the host made of what a model sent;
// and each chat's standing prompt, estimated part by part when its last turn ended.
constexpr std::string_view kV7 = R"sql(
ALTER TABLE turns ADD COLUMN first_token_ms INTEGER NOT NULL DEFAULT -1;
ALTER TABLE turns ADD COLUMN model_calls INTEGER NOT NULL DEFAULT 0;
ALTER TABLE turns ADD COLUMN tool_calls INTEGER NOT NULL DEFAULT 0;
ALTER TABLE tool_calls ADD COLUMN tool TEXT;
ALTER TABLE tool_calls ADD COLUMN result_chars INTEGER;
UPDATE tool_calls SET tool = name, result_chars = length(result) WHERE status <> 'running';
CREATE TABLE tool_repairs(
  id INTEGER PRIMARY KEY,
  session_id INTEGER NOT NULL,
  at INTEGER NOT NULL,
  kind TEXT NOT NULL CHECK(kind IN ('name_repaired','server_enabled_by_call','unknown_tool',
                                    'constrained_retry','printed_call','think_promoted')),
  tool TEXT NOT NULL DEFAULT '');
CREATE INDEX tool_repairs_at ON tool_repairs(at);
CREATE TABLE prompt_budget(
  chat_id TEXT NOT NULL,
  position INTEGER NOT NULL,
  part TEXT NOT NULL,
  est_tokens INTEGER NOT NULL,
  detail TEXT NOT NULL DEFAULT '',
  at INTEGER NOT NULL,
  PRIMARY KEY(chat_id, position));
)sql";

// The send side of the channel for the half-dead watchdog of `gantry status`: since when
// every send has failed (0: sends work) and the failure that began it.
constexpr std::string_view kV8 = R"sql(
ALTER TABLE heartbeat ADD COLUMN send_failing_since INTEGER NOT NULL DEFAULT 0;
ALTER TABLE heartbeat ADD COLUMN send_error TEXT NOT NULL DEFAULT '';
)sql";

// The search index holds what was said, not the context a user message was sent with: the
// leading [memory] block and [now] line (session/context_tail.h writes them; each runs
// through its blank line) are measured by two virtual columns and left out of the view the
// index is built from. A search no longer finds a message for a word only its recalled
// memory held, and a turn indexes its message instead of the whole memory block.
constexpr std::string_view kV9 = R"sql(
ALTER TABLE messages ADD COLUMN memory_chars INTEGER GENERATED ALWAYS AS (
  CASE WHEN role = 'user' AND substr(content, 1, 9) = '[memory]' || char(10)
            AND instr(content, char(10) || char(10)) > 0
       THEN instr(content, char(10) || char(10)) + 1 ELSE 0 END) VIRTUAL;
ALTER TABLE messages ADD COLUMN context_chars INTEGER GENERATED ALWAYS AS (
  CASE WHEN role = 'user' AND substr(content, memory_chars + 1, 6) = '[now] '
            AND instr(substr(content, memory_chars + 1), char(10) || char(10)) > 0
       THEN memory_chars + instr(substr(content, memory_chars + 1), char(10) || char(10)) + 1
       ELSE memory_chars END) VIRTUAL;
DROP TRIGGER messages_fts_ai;
DROP TRIGGER messages_fts_ad;
DROP TRIGGER messages_fts_au;
DROP VIEW message_text;
CREATE VIEW message_text AS SELECT id, substr(content, context_chars + 1) AS content
  FROM messages WHERE role IN ('user','assistant');
CREATE TRIGGER messages_fts_ai AFTER INSERT ON messages WHEN new.role IN ('user','assistant') BEGIN
  INSERT INTO messages_fts(rowid, content) VALUES (new.id, substr(new.content, new.context_chars + 1));
END;
CREATE TRIGGER messages_fts_ad AFTER DELETE ON messages WHEN old.role IN ('user','assistant') BEGIN
  INSERT INTO messages_fts(messages_fts, rowid, content)
    VALUES ('delete', old.id, substr(old.content, old.context_chars + 1));
END;
CREATE TRIGGER messages_fts_au AFTER UPDATE OF content ON messages
    WHEN old.role IN ('user','assistant') BEGIN
  INSERT INTO messages_fts(messages_fts, rowid, content)
    VALUES ('delete', old.id, substr(old.content, old.context_chars + 1));
  INSERT INTO messages_fts(rowid, content) VALUES (new.id, substr(new.content, new.context_chars + 1));
END;
INSERT INTO messages_fts(messages_fts) VALUES ('rebuild');
)sql";

// The messages' search index is brought up to date while the chats are idle, several
// messages a transaction, instead of by a trigger in each message's own. message_text, the
// index's content, holds only the messages it covers (up to messages_fts_progress), so FTS5's
// integrity check and 'rebuild' agree with it; the triggers keep the covered rows in step.
// context_chars becomes a column the store writes (text/context_blocks.h measures it):
// computed from the content by the virtual column of kV9, it cost more than the rest of
// recording a message (its instr() calls scanned the memory block eight times).
constexpr std::string_view kV10 = R"sql(
CREATE TABLE messages_fts_progress(
  id INTEGER PRIMARY KEY CHECK (id = 1),
  indexed_to INTEGER NOT NULL);
INSERT INTO messages_fts_progress(id, indexed_to) VALUES (1, (SELECT IFNULL(MAX(id), 0) FROM messages));
DROP TRIGGER messages_fts_ai;
DROP TRIGGER messages_fts_ad;
DROP TRIGGER messages_fts_au;
DROP VIEW message_text;
CREATE TEMP TABLE context_before AS SELECT id, context_chars FROM messages WHERE context_chars > 0;
ALTER TABLE messages DROP COLUMN context_chars;
ALTER TABLE messages ADD COLUMN context_chars INTEGER NOT NULL DEFAULT 0;
UPDATE messages SET context_chars = (SELECT c.context_chars FROM context_before c WHERE c.id = messages.id)
  WHERE id IN (SELECT id FROM context_before);
DROP TABLE context_before;
CREATE VIEW message_text AS SELECT id, substr(content, context_chars + 1) AS content
  FROM messages WHERE role IN ('user','assistant')
    AND id <= (SELECT indexed_to FROM messages_fts_progress);
CREATE TRIGGER messages_fts_ad AFTER DELETE ON messages
    WHEN old.role IN ('user','assistant')
      AND old.id <= (SELECT indexed_to FROM messages_fts_progress) BEGIN
  INSERT INTO messages_fts(messages_fts, rowid, content)
    VALUES ('delete', old.id, substr(old.content, old.context_chars + 1));
END;
CREATE TRIGGER messages_fts_au AFTER UPDATE OF content ON messages
    WHEN old.role IN ('user','assistant')
      AND old.id <= (SELECT indexed_to FROM messages_fts_progress) BEGIN
  INSERT INTO messages_fts(messages_fts, rowid, content)
    VALUES ('delete', old.id, substr(old.content, old.context_chars + 1));
  INSERT INTO messages_fts(rowid, content) VALUES (new.id, substr(new.content, new.context_chars + 1));
END;
)sql";

// memory_chars (kV9) goes: nothing reads it since context_chars is written (kV10), and SQLite
// computes a table's generated columns for every row it inserts or updates, so its instr()
// calls still scanned each user message's memory block twice as the message was recorded and
// again when it left the history.
constexpr std::string_view kV11 = R"sql(
ALTER TABLE messages DROP COLUMN memory_chars;
)sql";

// The CHECKs that list more than two values compare with each in turn instead: SQLite builds a
// temporary b-tree of an IN list's values for every row it checks (two zeroed pages, five
// times a turn). Same constraint, so
// the CREATE TABLE texts are edited in place, SQLite's documented way of changing a CHECK
// without copying the table (sqlite.org/lang_altertable.html, "making other kinds of table
// schema changes"): no row is read, however large the file. RESET reloads this connection's
// schema; the table created and dropped moves the schema version, which other connections'
// parsed schemas and prepared statements are checked against.
constexpr std::string_view kV12 = R"sql(
PRAGMA writable_schema = ON;
UPDATE sqlite_schema SET sql = replace(sql,
  'CHECK(role IN (''system'',''user'',''assistant'',''tool''))',
  'CHECK(role = ''system'' OR role = ''user'' OR role = ''assistant'' OR role = ''tool'')')
  WHERE type = 'table' AND name = 'messages';
UPDATE sqlite_schema SET sql = replace(sql,
  'CHECK(status IN (''running'',''ok'',''error''))',
  'CHECK(status = ''running'' OR status = ''ok'' OR status = ''error'')')
  WHERE type = 'table' AND name = 'tool_calls';
UPDATE sqlite_schema SET sql = replace(sql,
  'CHECK(kind IN (''fact'',''preference'',''person'',''episode'',''insight''))',
  'CHECK(kind = ''fact'' OR kind = ''preference'' OR kind = ''person'' OR kind = ''episode'' OR kind = ''insight'')')
  WHERE type = 'table' AND name = 'memory';
UPDATE sqlite_schema SET sql = replace(sql,
  'CHECK(source IN (''chat'',''consolidation'',''operator''))',
  'CHECK(source = ''chat'' OR source = ''consolidation'' OR source = ''operator'')')
  WHERE type = 'table' AND name = 'memory';
UPDATE sqlite_schema SET sql = replace(sql,
  'CHECK(state IN (''pending'',''approved'',''denied'',''expired'',''used''))',
  'CHECK(state = ''pending'' OR state = ''approved'' OR state = ''denied'' OR state = ''expired'' OR state = ''used'')')
  WHERE type = 'table' AND name = 'approvals';
UPDATE sqlite_schema SET sql = replace(sql,
  'CHECK(follow_up IN (''none'',''parked'',''done''))',
  'CHECK(follow_up = ''none'' OR follow_up = ''parked'' OR follow_up = ''done'')')
  WHERE type = 'table' AND name = 'approvals';
UPDATE sqlite_schema SET sql = replace(sql,
  'CHECK(status IN (''running'',''done'',''budget_exhausted'',''failed'',''cancelled''))',
  'CHECK(status = ''running'' OR status = ''done'' OR status = ''budget_exhausted'' OR status = ''failed'' OR status = ''cancelled'')')
  WHERE type = 'table' AND name = 'api_tasks';
UPDATE sqlite_schema SET sql = replace(sql,
  'CHECK(state IN (''pending'',''sending'',''delivered'',''failed'',''dropped''))',
  'CHECK(state = ''pending'' OR state = ''sending'' OR state = ''delivered'' OR state = ''failed'' OR state = ''dropped'')')
  WHERE type = 'table' AND name = 'outbox';
UPDATE sqlite_schema SET sql = replace(sql,
  'CHECK(kind IN (''name_repaired'',''server_enabled_by_call'',''unknown_tool'',
                                    ''constrained_retry'',''printed_call'',''think_promoted''))',
  'CHECK(kind = ''name_repaired'' OR kind = ''server_enabled_by_call'' OR kind = ''unknown_tool'' OR kind = ''constrained_retry'' OR kind = ''printed_call'' OR kind = ''think_promoted'')')
  WHERE type = 'table' AND name = 'tool_repairs';
PRAGMA writable_schema = RESET;
CREATE TABLE schema_changed(x);
DROP TABLE schema_changed;
)sql";

// Approval seals: MACs with a key only the daemon and the operator's CLI read, so a row
// written into the table by anything else (a tool that reached the file) is not obeyed.
constexpr std::string_view kV13 = R"sql(
ALTER TABLE approvals ADD COLUMN request_seal TEXT NOT NULL DEFAULT '';
ALTER TABLE approvals ADD COLUMN decision_seal TEXT NOT NULL DEFAULT '';
)sql";

// Tool results collapse when the history is trimmed and stay collapsed after (DESIGN 4.2):
// the mark is the newest message whose result is sent collapsed.
constexpr std::string_view kV14 = R"sql(
ALTER TABLE sessions ADD COLUMN collapsed_through INTEGER NOT NULL DEFAULT 0;
)sql";

// A contradiction with the persona names the memory row that holds it, when there is one
// (memory_id), so that row is withheld from the prompt while the contradiction stands; told_at
// is when the owner was told about it in the chat (once).
constexpr std::string_view kV15 = R"sql(
ALTER TABLE memory_conflicts ADD COLUMN memory_id INTEGER;
ALTER TABLE memory_conflicts ADD COLUMN told_at INTEGER;
)sql";

// Watches (DESIGN 7): an MCP tool polled without the model, and the ids of the items each
// watch has seen (bounded per watch: the least recently seen go first).
constexpr std::string_view kV16 = R"sql(
CREATE TABLE watches(
  id INTEGER PRIMARY KEY,
  chat_id TEXT NOT NULL,
  tool TEXT NOT NULL,
  arguments TEXT NOT NULL,
  every_seconds INTEGER NOT NULL DEFAULT 0,
  schedule TEXT NOT NULL DEFAULT '',
  prompt TEXT NOT NULL,
  items_pointer TEXT NOT NULL DEFAULT '',
  id_pointer TEXT NOT NULL DEFAULT '',
  created_at INTEGER NOT NULL,
  next_poll_at INTEGER,
  last_poll_at INTEGER,
  primed INTEGER NOT NULL DEFAULT 0,
  failures INTEGER NOT NULL DEFAULT 0,
  last_error TEXT NOT NULL DEFAULT '',
  failure_reported INTEGER NOT NULL DEFAULT 0);
CREATE INDEX watches_next ON watches(next_poll_at);
CREATE TABLE watch_seen(
  watch_id INTEGER NOT NULL,
  item_id TEXT NOT NULL,
  seen_at INTEGER NOT NULL,
  PRIMARY KEY(watch_id, item_id));
CREATE INDEX watch_seen_age ON watch_seen(watch_id, seen_at);
)sql";

}  // namespace

const std::vector<std::string_view>& migrations() {
  static const std::vector<std::string_view> kAll = {kV1, kV2,  kV3,  kV4,  kV5,  kV6,  kV7,  kV8,
                                                     kV9, kV10, kV11, kV12, kV13, kV14, kV15, kV16};
  return kAll;
}

}  // namespace gantry::store
