#include "store/memory_repo.h"

#include <Poco/Data/Session.h>
#include <Poco/Tuple.h>

#include <algorithm>
#include <cctype>
#include <limits>
#include <optional>
#include <set>

#include "store/db.h"

using Poco::Data::Keywords::into;
using Poco::Data::Keywords::now;
using Poco::Data::Keywords::use;

namespace gantry::store {
namespace {

// id, kind, subject, content, source, confidence, created_at, updated_at, expires_at,
// superseded_by, consolidated, relevance
using RowTuple =
    Poco::Tuple<Poco::Int64, std::string, std::string, std::string, std::string, double,
                Poco::Int64, Poco::Int64, Poco::Int64, Poco::Int64, int, double>;

constexpr const char* kColumns =
    "m.id, m.kind, m.subject, m.content, m.source, m.confidence, m.created_at, m.updated_at, "
    "IFNULL(m.expires_at, 0), IFNULL(m.superseded_by, 0), m.consolidated";
constexpr const char* kActive =
    "m.superseded_by IS NULL AND (m.expires_at IS NULL OR m.expires_at > ?)";
constexpr std::size_t kMaxQueryWords = 32;
constexpr std::size_t kMaxSelectiveWords = 8;
constexpr Poco::Int64 kCommonFloor = 100;
constexpr Poco::Int64 kDocBudget = 200;

MemoryRow toRow(const RowTuple& t) {
  MemoryRow row;
  row.id = t.get<0>();
  row.kind = t.get<1>();
  row.subject = t.get<2>();
  row.content = t.get<3>();
  row.source = t.get<4>();
  row.confidence = t.get<5>();
  row.created_at = t.get<6>();
  row.updated_at = t.get<7>();
  row.expires_at = t.get<8>();
  row.superseded_by = t.get<9>();
  row.consolidated = t.get<10>() != 0;
  row.relevance = t.get<11>();
  return row;
}

// A row of kColumns followed by the relevance, from a prepared query.
MemoryRow readRow(const Query& q) {
  MemoryRow row;
  row.id = q.integer(0);
  row.kind = q.text(1);
  row.subject = q.text(2);
  row.content = q.text(3);
  row.source = q.text(4);
  row.confidence = q.real(5);
  row.created_at = q.integer(6);
  row.updated_at = q.integer(7);
  row.expires_at = q.integer(8);
  row.superseded_by = q.integer(9);
  row.consolidated = q.integer(10) != 0;
  row.relevance = q.real(11);
  return row;
}

std::vector<MemoryRow> readRows(Query& q) {
  std::vector<MemoryRow> rows;
  while (q.step()) rows.push_back(readRow(q));
  return rows;
}

std::vector<MemoryRow> toRows(const std::vector<RowTuple>& tuples) {
  std::vector<MemoryRow> rows;
  rows.reserve(tuples.size());
  for (const auto& t : tuples) rows.push_back(toRow(t));
  return rows;
}

bool isWordByte(unsigned char c) { return c >= 0x80 || std::isalnum(c) != 0; }

// The distinct words of text (letters, digits, any non-ASCII byte), at most kMaxQueryWords.
std::vector<std::string> queryWords(std::string_view text) {
  std::vector<std::string> words;
  std::set<std::string> seen;
  std::size_t i = 0;
  while (i < text.size() && words.size() < kMaxQueryWords) {
    while (i < text.size() && !isWordByte(static_cast<unsigned char>(text[i]))) ++i;
    std::size_t start = i;
    while (i < text.size() && isWordByte(static_cast<unsigned char>(text[i]))) ++i;
    if (i > start && seen.insert(std::string(text.substr(start, i - start))).second) {
      words.emplace_back(text.substr(start, i - start));
    }
  }
  return words;
}

// Words hold no ASCII punctuation, so no quote needs doubling inside an FTS5 string.
std::string joinWords(const std::vector<std::string>& words, MatchMode mode) {
  std::string query;
  const char* joiner = mode == MatchMode::kAnyWord ? " OR " : " AND ";
  for (const auto& word : words) {
    if (!query.empty()) query += joiner;
    query += '"';
    query += word;
    query += '"';
  }
  return query;
}

// How many rows contain word, counted up to cap (FTS5 stops reading its index there). The
// word goes through the table's own tokenizer, so case and accents fold as in a search.
Poco::Int64 documentFrequency(PreparedCache& cache, const std::string& word, Poco::Int64 cap) {
  Query count(cache,
              "SELECT COUNT(*) FROM (SELECT rowid FROM memory_fts WHERE memory_fts MATCH ? "
              "LIMIT ?)");
  count.bind("\"" + word + "\"").bind(cap);
  return count.step() ? count.integer(0) : 0;
}

// An FTS5 MATCH expression and how to order its hits.
struct Match {
  std::string expression;  ///< "" when nothing can match
  /// The only word left is a common one: the newest hits are taken (FTS5 walks its index
  /// backwards and stops at the limit) instead of scoring every hit, with relevance 0.
  bool broad = false;
  /// How many rows each word of an OR match is in, in its order: gantry_bm25's counts.
  std::vector<int64_t> word_rows;
};

// Keeps the informative words of an OR query, rarest first: words no row contains are
// dropped, words in more than 5% of the rows (at most kDocBudget rows; say "the", "my") are
// dropped, and words stop being added once they would match more than kDocBudget rows
// together; when nothing is left the rarest word stays. Bounds the work of a recall whatever
// the table size: a common word would make bm25 score nearly every row while adding almost
// nothing to the ranking. A word's count is read once while the index stays as it is
// (store/memory_rank.h); match gets the kept words' counts and whether the match is broad.
std::vector<std::string> selectiveWords(Db& db, const std::vector<std::string>& words,
                                        Match& match) {
  PreparedCache& cache = db.prepared;
  Poco::Int64 rows = 0;  // the largest id: an upper bound of the row count, read from the index
  if (Query max(cache, "SELECT IFNULL(MAX(id), 0) FROM memory"); max.step()) rows = max.integer(0);
  if (rows == 0) return {};  // no row to match: no word is counted (nor kept counted)
  Poco::Int64 common = std::min(std::max<Poco::Int64>(kCommonFloor, rows / 20), kDocBudget);
  std::vector<std::pair<Poco::Int64, std::string>> ranked;
  for (const auto& word : words) {
    std::optional<int64_t> docs = db.memory_rank.wordRows(word);
    if (!docs) {
      docs = documentFrequency(cache, word, common + 1);
      db.memory_rank.rememberWordRows(word, *docs);
    }
    if (*docs != 0) ranked.emplace_back(*docs, word);
  }
  std::stable_sort(ranked.begin(), ranked.end(),
                   [](const auto& a, const auto& b) { return a.first < b.first; });
  std::vector<std::string> kept;
  Poco::Int64 matched = 0;
  for (const auto& [docs, word] : ranked) {
    if (docs > common || kept.size() == kMaxSelectiveWords || matched + docs > kDocBudget) break;
    kept.push_back(word);
    match.word_rows.push_back(docs);
    matched += docs;
  }
  if (kept.empty() && !ranked.empty()) {
    kept.push_back(ranked.front().second);
    match.broad = ranked.front().first > common;
    match.word_rows.push_back(ranked.front().first);  // capped when broad; then nothing scores
  }
  return kept;
}

std::string quoteList(const std::vector<std::string>& words) {
  std::string list;
  for (const auto& word : words) {
    if (!isMemoryKind(word)) continue;
    if (!list.empty()) list += ',';
    list += '\'';
    list += word;
    list += '\'';
  }
  return list;
}

std::string idList(const std::vector<int64_t>& ids) {
  std::string list;
  for (int64_t id : ids) {
    if (!list.empty()) list += ',';
    list += std::to_string(id);
  }
  return list;
}

// The match for query: every word for kAllWords, the informative ones for kAnyWord.
Match matchFor(Db& db, std::string_view query, MatchMode mode) {
  Match match;
  auto words = queryWords(query);
  if (mode == MatchMode::kAnyWord && !words.empty()) {
    words = selectiveWords(db, words, match);
  }
  match.expression = joinWords(words, mode);
  return match;
}

// The scoring query for match: gantry_bm25 (store/memory_rank.h), the subject column weighing
// twice the content, given the words' row counts when the match has them (one text for each
// number of words, at most kMaxSelectiveWords + 1).
std::string scoringSql(const Match& match) {
  std::string sql = "SELECT rowid, gantry_bm25(memory_fts, 2.0, 1.0";
  for (std::size_t i = 0; i < match.word_rows.size(); ++i) sql += ", ?";
  return sql + ") FROM memory_fts WHERE memory_fts MATCH ?";
}

// match's hits, best first: bm25 computed once a hit, in FTS5's index order, and sorted here;
// ties go to the newer row. Ordering by FTS5's rank instead made it prepare a sorting
// statement for every query and carry each hit through a temporary b-tree.
std::vector<std::pair<double, int64_t>> scoredHits(PreparedCache& cache, const Match& match) {
  const std::string sql = scoringSql(match);
  Query hits(cache, sql.c_str());
  for (int64_t rows : match.word_rows) hits.bind(rows);
  hits.bind(match.expression);
  std::vector<std::pair<double, int64_t>> scored;
  while (hits.step()) scored.emplace_back(hits.real(1), hits.integer(0));
  std::sort(scored.begin(), scored.end(), std::greater<>());
  return scored;
}

// kColumns, the relevance and what RowFacts holds beyond them, for the rows of json_each(?)'s
// ids. The ids lead the join: `m.id IN (SELECT value FROM json_each(?))` had SQLite copy them
// into a temporary b-tree first.
const char* rowsOfIdsSql() {
  static const std::string sql = std::string("SELECT ") + kColumns +
                                 ", 0.0, m.expires_at IS NOT NULL, m.superseded_by IS NOT NULL "
                                 "FROM json_each(?) ids CROSS JOIN memory m ON m.id = ids.value";
  return sql.c_str();
}

// A row's facts from its columns; not known() for a kind not in kMemoryKinds (the schema
// allows none).
RowFacts factsOf(std::string_view kind, int64_t updated_at, int64_t expires_at, bool expires,
                 bool superseded) {
  RowFacts facts;
  facts.updated_at = updated_at;
  facts.active_until = superseded ? std::numeric_limits<int64_t>::min()
                       : expires  ? expires_at
                                  : std::numeric_limits<int64_t>::max();
  const auto* known = std::find(std::begin(kMemoryKinds), std::end(kMemoryKinds), kind);
  if (known != std::end(kMemoryKinds)) {
    facts.kind = static_cast<uint8_t>(known - std::begin(kMemoryKinds));
  }
  return facts;
}

// Every row's facts, in one pass over the table: a recall that knows them reads whole only the
// rows it keeps. Newest first, so that the first row sizes the table of facts.
void readAllFacts(Db& db) {
  Query select(db.prepared,
               "SELECT id, kind, updated_at, IFNULL(expires_at, 0), expires_at IS NOT NULL, "
               "superseded_by IS NOT NULL FROM memory WHERE id < ? ORDER BY id DESC");
  select.bind(MemoryRank::kFactsIdLimit);
  while (select.step()) {
    db.memory_rank.rememberFacts(select.integer(0),
                                 factsOf(select.text(1), select.integer(2), select.integer(3),
                                         select.integer(4) != 0, select.integer(5) != 0));
  }
  db.memory_rank.setFactsRead();
}

// An active row with only what ranking may use: its id, facts and relevance.
MemoryRow rowOfFacts(int64_t id, const RowFacts& facts, double relevance) {
  MemoryRow row;
  row.id = id;
  row.kind = kMemoryKinds[facts.kind];
  row.updated_at = facts.updated_at;
  if (facts.active_until != std::numeric_limits<int64_t>::max()) {
    row.expires_at = facts.active_until;
  }
  row.relevance = relevance;
  return row;
}

// A row read whole, with its facts.
struct ReadRow {
  MemoryRow row;
  RowFacts facts;
};

// The rows of ids, whole, in no particular order; their facts are remembered.
std::vector<ReadRow> readWhole(Db& db, const std::vector<int64_t>& ids) {
  std::vector<ReadRow> rows;
  if (ids.empty()) return rows;
  Query select(db.prepared, rowsOfIdsSql());
  select.bind("[" + idList(ids) + "]");  // for json_each: one statement for any number
  while (select.step()) {
    MemoryRow row = readRow(select);
    RowFacts facts = factsOf(row.kind, row.updated_at, row.expires_at, select.integer(12) != 0,
                             select.integer(13) != 0);
    db.memory_rank.rememberFacts(row.id, facts);
    rows.push_back({std::move(row), facts});
  }
  return rows;
}

// A hit on its way out of a recall: its row whole, or, when its facts were known, only what
// ranking may use, with the facts it was chosen by.
struct Candidate {
  MemoryRow row;
  std::optional<RowFacts> unread;  ///< set while only the facts are in row
};

// The first `wanted` of the scored hits whose rows are active at active_at (every hit when
// nullopt), in hit order, with their relevance. With use_facts a hit whose row's facts are
// known is not read; the others are read whole (as many as are still wanted at a time, the
// next ones only when some fell out), and their facts kept.
std::vector<Candidate> firstHits(Db& db, const std::vector<std::pair<double, int64_t>>& scored,
                                 std::size_t wanted, std::optional<int64_t> active_at,
                                 bool use_facts) {
  auto kept = [&](const RowFacts& facts) { return !active_at || facts.activeAt(*active_at); };
  std::vector<Candidate> out;
  for (std::size_t next = 0; out.size() < wanted && next < scored.size();) {
    const std::size_t end = std::min(scored.size(), next + wanted - out.size());
    std::vector<int64_t> unknown;
    for (std::size_t i = next; i < end; ++i) {
      if (!use_facts || db.memory_rank.facts(scored[i].second) == nullptr) {
        unknown.push_back(scored[i].second);
      }
    }
    // At most `wanted` rows: a search through them costs less than a map's nodes did.
    std::vector<ReadRow> found = readWhole(db, unknown);
    for (; next < end; ++next) {
      const double relevance = scored[next].first;
      const int64_t id = scored[next].second;
      auto it = std::find_if(found.begin(), found.end(),
                             [&](const ReadRow& read) { return read.row.id == id; });
      if (it != found.end()) {
        if (!kept(it->facts)) continue;
        it->row.relevance = relevance;
        out.push_back({std::move(it->row), std::nullopt});
        continue;
      }
      const RowFacts* facts = use_facts ? db.memory_rank.facts(id) : nullptr;
      if (facts == nullptr || !kept(*facts)) continue;  // a hit without a row, or not active
      out.push_back({rowOfFacts(id, *facts, relevance), *facts});
    }
  }
  return out;
}

std::vector<MemoryRow> wholeRows(std::vector<Candidate> candidates) {
  std::vector<MemoryRow> rows;
  rows.reserve(candidates.size());
  for (auto& candidate : candidates) rows.push_back(std::move(candidate.row));
  return rows;
}

// The newest hits of a broad match, up to limit (only active rows when active_at is set):
// FTS5 walks its index backwards and stops at the limit; relevance 0.
std::vector<MemoryRow> newestRows(PreparedCache& cache, const Match& match, int limit,
                                  std::optional<int64_t> active_at) {
  const std::string sql = std::string("SELECT ") + kColumns +
                          ", 0.0 FROM memory_fts JOIN memory m ON m.id = memory_fts.rowid "
                          "WHERE memory_fts MATCH ?" +
                          (active_at ? std::string(" AND ") + kActive : std::string()) +
                          " ORDER BY memory_fts.rowid DESC LIMIT ?";
  Query select(cache, sql.c_str());
  select.bind(match.expression);
  if (active_at) select.bind(*active_at);
  select.bind(int64_t{limit});
  return readRows(select);
}

// The rows for query, up to limit, best first (only active rows when active_at is set). Its
// queries share one read transaction: SQLite's file locks are taken once instead of once a
// query.
std::vector<MemoryRow> matchingRows(Db& db, std::string_view query, MatchMode mode, int limit,
                                    std::optional<int64_t> active_at) {
  Transaction reads(db, Transaction::Kind::kRead);
  db.memory_rank.refresh(db.prepared);  // its PRAGMA starts the read: the snapshot it checks
  Match match = matchFor(db, query, mode);
  std::vector<MemoryRow> rows;
  if (!match.expression.empty()) {
    rows = match.broad ? newestRows(db.prepared, match, limit, active_at)
                       : wholeRows(firstHits(db, scoredHits(db.prepared, match),
                                             static_cast<std::size_t>(limit), active_at, false));
  }
  reads.commit();
  return rows;
}

// Reads whole the candidates that are not; false when a row is gone or holds other facts
// than it was chosen by (then the facts kept were wrong, and are all forgotten).
bool completeRows(Db& db, std::vector<Candidate>& candidates) {
  std::vector<int64_t> ids;
  for (const auto& candidate : candidates) {
    if (candidate.unread) ids.push_back(candidate.row.id);
  }
  std::vector<ReadRow> found = readWhole(db, ids);
  if (found.size() != ids.size()) return false;
  for (auto& candidate : candidates) {
    if (!candidate.unread) continue;
    auto it = std::find_if(found.begin(), found.end(),
                           [&](const ReadRow& read) { return read.row.id == candidate.row.id; });
    if (it == found.end() || !(it->facts == *candidate.unread)) return false;
    it->row.relevance = candidate.row.relevance;
    candidate.row = std::move(it->row);
    candidate.unread.reset();
  }
  return true;
}

// The `keep` best by score of the first `wanted` active hits for query, whole, best first.
// The first recall with hits to rank reads every row's facts; then only the kept rows are read.
std::vector<MemoryRow> bestScoredRows(Db& db, std::string_view query, MatchMode mode, int wanted,
                                      int keep, int64_t now_ms, const MemoryScore& score) {
  auto best = [&](std::vector<Candidate>& candidates) {
    keepBestScored(
        candidates, static_cast<std::size_t>(keep),
        [](const Candidate& candidate) -> const MemoryRow& { return candidate.row; }, score);
  };
  Transaction reads(db, Transaction::Kind::kRead);
  db.memory_rank.refresh(db.prepared);  // its PRAGMA starts the read: the snapshot it checks
  Match match = matchFor(db, query, mode);
  std::vector<Candidate> candidates;
  if (match.broad) {
    for (auto& row : newestRows(db.prepared, match, wanted, now_ms)) {
      candidates.push_back({std::move(row), std::nullopt});
    }
    best(candidates);
  } else if (!match.expression.empty()) {
    if (!db.memory_rank.factsRead()) readAllFacts(db);
    const auto scored = scoredHits(db.prepared, match);
    const auto want = static_cast<std::size_t>(wanted);
    candidates = firstHits(db, scored, want, now_ms, true);
    best(candidates);
    if (!completeRows(db, candidates)) {
      db.memory_rank.forgetAllFacts();
      candidates = firstHits(db, scored, want, now_ms, false);
      best(candidates);
    }
  }
  reads.commit();
  return wholeRows(std::move(candidates));
}

// The ids of row `id` and of every row it transitively superseded.
std::string chainSql(const std::string& roots) {
  return "WITH RECURSIVE chain(id) AS (SELECT id FROM memory WHERE id IN (" + roots +
         ") UNION SELECT m.id FROM memory m JOIN chain c ON m.superseded_by = c.id) ";
}

// Deletes the given rows and their superseded chains; returns the removed rows.
std::vector<MemoryRow> deleteChains(Db& db, const std::vector<int64_t>& ids) {
  if (ids.empty()) return {};
  std::string chain = chainSql(idList(ids));
  std::vector<RowTuple> removed;
  auto& session = db.session;
  Transaction tx(db);
  session << chain + "SELECT " + kColumns + ", 0.0 FROM memory m WHERE m.id IN chain ORDER BY m.id",
      into(removed), now;
  // A contradiction held by a row that goes is resolved with it (before the delete: the chain
  // is read from the rows).
  session << chain + "UPDATE memory_conflicts SET resolved = 1 WHERE memory_id IN chain", now;
  session << chain + "DELETE FROM memory WHERE id IN chain", now;
  tx.commit();
  return toRows(removed);
}

}  // namespace

bool isMemoryKind(std::string_view kind) {
  return std::find(std::begin(kMemoryKinds), std::end(kMemoryKinds), kind) !=
         std::end(kMemoryKinds);
}

std::string ftsQuery(std::string_view text, MatchMode mode) {
  return joinWords(queryWords(text), mode);
}

Result<int64_t> MemoryRepo::insert(const NewMemory& row) {
  return locked(store_, "memory", "store", [&](Poco::Data::Session& session) -> Result<int64_t> {
    Poco::Int64 id = 0;
    NewMemory r = row;
    Poco::Int64 created = nowMs();
    Poco::Nullable<Poco::Int64> expires;
    if (r.expires_at != 0) expires = r.expires_at;
    session << "INSERT INTO memory(kind, subject, content, source, confidence, created_at, "
               "updated_at, expires_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?) RETURNING id",
        use(r.kind), use(r.subject), use(r.content), use(r.source), use(r.confidence), use(created),
        use(created), use(expires), into(id), now;
    return static_cast<int64_t>(id);
  });
}

Result<std::optional<MemoryRow>> MemoryRepo::get(int64_t id) {
  return locked(store_, "memory", "get",
                [&](Poco::Data::Session& session) -> Result<std::optional<MemoryRow>> {
                  std::vector<RowTuple> rows;
                  Poco::Int64 key = id;
                  session << std::string("SELECT ") + kColumns +
                                 ", 0.0 FROM memory m WHERE m.id = ?",
                      use(key), into(rows), now;
                  if (rows.empty()) return std::optional<MemoryRow>();
                  return std::optional<MemoryRow>(toRow(rows.front()));
                });
}

Result<std::vector<MemoryRow>> MemoryRepo::bestActive(std::string_view query, int candidates,
                                                      int keep, int64_t now_ms,
                                                      const MemoryScore& score, MatchMode mode) {
  if (queryWords(query).empty() || candidates <= 0 || keep <= 0) return std::vector<MemoryRow>();
  return locked(store_, "memory", "recall",
                [&](Poco::Data::Session&) -> Result<std::vector<MemoryRow>> {
                  return bestScoredRows(store_.db(), query, mode, candidates, keep, now_ms, score);
                });
}

Result<std::vector<MemoryRow>> MemoryRepo::search(std::string_view query, int limit) {
  if (queryWords(query).empty() || limit <= 0) return std::vector<MemoryRow>();
  return locked(store_, "memory", "search",
                [&](Poco::Data::Session&) -> Result<std::vector<MemoryRow>> {
                  return matchingRows(store_.db(), query, MatchMode::kAnyWord, limit, std::nullopt);
                });
}

Result<std::vector<MemoryRow>> MemoryRepo::list(std::string_view kind, int limit) {
  return locked(
      store_, "memory", "list",
      [&](Poco::Data::Session& session) -> Result<std::vector<MemoryRow>> {
        std::vector<RowTuple> rows;
        std::string k(kind);
        int cap = limit > 0 ? limit : -1;
        session
            << std::string("SELECT ") + kColumns +
                   ", 0.0 FROM memory m WHERE (? = '' OR m.kind = ?) ORDER BY m.id DESC LIMIT ?",
            use(k), use(k), use(cap), into(rows), now;
        return toRows(rows);
      });
}

Result<std::vector<MemoryRow>> MemoryRepo::active(const std::vector<std::string>& kinds, int limit,
                                                  int64_t now_ms) {
  std::string list = quoteList(kinds);
  if (list.empty() || limit <= 0) return std::vector<MemoryRow>();
  return locked(store_, "memory", "active",
                [&](Poco::Data::Session&) -> Result<std::vector<MemoryRow>> {
                  std::string sql = std::string("SELECT ") + kColumns +
                                    ", 0.0 FROM memory m WHERE m.kind IN (" + list + ") AND " +
                                    kActive + " ORDER BY m.id DESC LIMIT ?";
                  Query select(store_.db().prepared, sql.c_str());
                  select.bind(now_ms).bind(int64_t{limit});
                  return readRows(select);
                });
}

Result<int64_t> MemoryRepo::count() {
  return locked(store_, "memory", "count", [&](Poco::Data::Session& session) -> Result<int64_t> {
    Poco::Int64 n = 0;
    session << "SELECT COUNT(*) FROM memory", into(n), now;
    return static_cast<int64_t>(n);
  });
}

Result<std::vector<MemoryRow>> MemoryRepo::forgetById(int64_t id) {
  return locked(store_, "memory", "forget",
                [&](Poco::Data::Session&) -> Result<std::vector<MemoryRow>> {
                  return deleteChains(store_.db(), {id});
                });
}

Result<std::vector<MemoryRow>> MemoryRepo::forgetByQuery(std::string_view query, int limit,
                                                         int64_t now_ms) {
  if (queryWords(query).empty() || limit <= 0) return std::vector<MemoryRow>();
  return locked(store_, "memory", "forget",
                [&](Poco::Data::Session&) -> Result<std::vector<MemoryRow>> {
                  std::vector<int64_t> ids;
                  for (const auto& row :
                       matchingRows(store_.db(), query, MatchMode::kAllWords, limit, now_ms)) {
                    ids.push_back(row.id);
                  }
                  return deleteChains(store_.db(), ids);
                });
}

Status MemoryRepo::supersede(int64_t id, int64_t by_id) {
  if (id == by_id) return Status::error("memory: supersede: a row cannot supersede itself");
  return locked(store_, "memory", "supersede", [&](Poco::Data::Session& session) -> Status {
    Poco::Int64 target = id, by = by_id, at = nowMs();
    session << "UPDATE memory SET superseded_by = ?, updated_at = ? WHERE id = ?", use(by), use(at),
        use(target), now;
    return Status::ok();
  });
}

Status MemoryRepo::setExpiry(int64_t id, int64_t expires_at) {
  return locked(store_, "memory", "expire", [&](Poco::Data::Session& session) -> Status {
    Poco::Int64 target = id;
    Poco::Nullable<Poco::Int64> at;
    if (expires_at != 0) at = expires_at;
    session << "UPDATE memory SET expires_at = ? WHERE id = ?", use(at), use(target), now;
    return Status::ok();
  });
}

Result<int> MemoryRepo::purgeExpired(int64_t now_ms) {
  return locked(store_, "memory", "purge", [&](Poco::Data::Session& session) -> Result<int> {
    std::vector<Poco::Int64> expired;
    Poco::Int64 at = now_ms;
    session << "SELECT id FROM memory WHERE expires_at IS NOT NULL AND expires_at <= ?", use(at),
        into(expired), now;
    std::vector<int64_t> ids(expired.begin(), expired.end());
    return static_cast<int>(deleteChains(store_.db(), ids).size());
  });
}

Result<std::vector<MemoryRow>> MemoryRepo::unconsolidatedEpisodes(int limit, int64_t now_ms) {
  return locked(
      store_, "memory", "episodes",
      [&](Poco::Data::Session& session) -> Result<std::vector<MemoryRow>> {
        std::vector<RowTuple> rows;
        Poco::Int64 at = now_ms;
        session << std::string("SELECT ") + kColumns +
                       ", 0.0 FROM memory m WHERE m.kind = 'episode' AND m.consolidated = 0 AND " +
                       kActive + " ORDER BY m.id LIMIT ?",
            use(at), use(limit), into(rows), now;
        return toRows(rows);
      });
}

Status MemoryRepo::markConsolidated(const std::vector<int64_t>& ids) {
  if (ids.empty()) return Status::ok();
  return locked(store_, "memory", "mark consolidated", [&](Poco::Data::Session& session) -> Status {
    session << "UPDATE memory SET consolidated = 1 WHERE id IN (" + idList(ids) + ")", now;
    return Status::ok();
  });
}

Result<int64_t> MemoryRepo::insertConflict(const std::string& subject, const std::string& content,
                                           const std::string& persona_excerpt, int64_t memory_id) {
  return locked(store_, "memory", "conflict", [&](Poco::Data::Session& session) -> Result<int64_t> {
    Poco::Int64 id = 0, at = nowMs();
    std::string s = subject, c = content, p = persona_excerpt;
    Poco::Nullable<Poco::Int64> row;
    if (memory_id != 0) row = memory_id;
    session << "INSERT INTO memory_conflicts(memory_subject, memory_content, persona_excerpt, "
               "created_at, memory_id) VALUES (?, ?, ?, ?, ?) RETURNING id",
        use(s), use(c), use(p), use(at), use(row), into(id), now;
    return static_cast<int64_t>(id);
  });
}

Result<std::vector<MemoryConflict>> MemoryRepo::conflicts(bool include_resolved) {
  return locked(
      store_, "memory", "conflicts",
      [&](Poco::Data::Session& session) -> Result<std::vector<MemoryConflict>> {
        std::vector<Poco::Tuple<Poco::Int64, std::string, std::string, std::string, Poco::Int64,
                                int, Poco::Int64, Poco::Int64>>
            rows;
        int all = include_resolved ? 1 : 0;
        session << "SELECT id, memory_subject, memory_content, persona_excerpt, created_at, "
                   "resolved, IFNULL(memory_id, 0), IFNULL(told_at, 0) FROM memory_conflicts "
                   "WHERE ? = 1 OR resolved = 0 ORDER BY id DESC",
            use(all), into(rows), now;
        std::vector<MemoryConflict> out;
        out.reserve(rows.size());
        for (const auto& t : rows) {
          out.push_back({t.get<0>(), t.get<1>(), t.get<2>(), t.get<3>(), t.get<4>(),
                         t.get<5>() != 0, t.get<6>(), t.get<7>()});
        }
        return out;
      });
}

Status MemoryRepo::markConflictsTold(const std::vector<int64_t>& ids) {
  if (ids.empty()) return Status::ok();
  return locked(store_, "memory", "conflict told", [&](Poco::Data::Session& session) -> Status {
    Poco::Int64 at = nowMs();
    session << "UPDATE memory_conflicts SET told_at = ? WHERE id IN (" + idList(ids) + ")", use(at),
        now;
    return Status::ok();
  });
}

}  // namespace gantry::store
