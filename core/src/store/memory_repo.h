#pragma once
/// Durable memory rows (DESIGN 6): the memory table, its FTS5 index memory_fts (kept in sync
/// by triggers) and memory_conflicts. Every method takes the store's lock; failures come back
/// as Status values naming the operation.

#include <algorithm>
#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "gantry/status.h"
#include "store/store.h"

namespace gantry::store {

/// The kinds of the memory.kind column, in the schema's order.
inline constexpr std::string_view kMemoryKinds[] = {"fact", "preference", "person", "episode",
                                                    "insight"};

/// True when kind is one of kMemoryKinds.
bool isMemoryKind(std::string_view kind);

/// One row of the memory table. Zero stands for NULL in expires_at and superseded_by.
struct MemoryRow {
  int64_t id = 0;
  std::string kind;
  std::string subject;
  std::string content;
  std::string source;  ///< chat | consolidation | operator
  double confidence = 1.0;
  int64_t created_at = 0;
  int64_t updated_at = 0;
  int64_t expires_at = 0;     ///< 0: never expires
  int64_t superseded_by = 0;  ///< 0: not superseded
  bool consolidated = false;
  double relevance = 0;  ///< FTS5 match strength (-bm25, >= 0); 0 for rows not from a search

  /// Not superseded and not expired at now_ms.
  bool active(int64_t now_ms) const {
    return superseded_by == 0 && (expires_at == 0 || expires_at > now_ms);
  }
};

/// Scores a candidate of a recall, higher first, from what ranking may use of it: id, kind,
/// updated_at, expires_at, superseded_by and relevance (its text may not be read yet).
using MemoryScore = std::function<double(const MemoryRow&)>;

/// Orders items best first by the score of their rows, ties to the newer row (the higher id),
/// and keeps the first `keep`: the one order of a recall's ranking (memory::rank's too).
/// row_of(item) is the item's MemoryRow.
template <class Item, class RowOf, class Score>
void keepBestScored(std::vector<Item>& items, std::size_t keep, RowOf row_of, const Score& score) {
  std::vector<std::pair<double, std::size_t>> order;
  order.reserve(items.size());
  for (std::size_t i = 0; i < items.size(); ++i) order.emplace_back(score(row_of(items[i])), i);
  std::sort(order.begin(), order.end(), [&](const auto& a, const auto& b) {
    if (a.first != b.first) return a.first > b.first;
    return row_of(items[a.second]).id > row_of(items[b.second]).id;
  });
  std::vector<Item> best;
  best.reserve(std::min(keep, items.size()));
  for (std::size_t i = 0; i < order.size() && i < keep; ++i) {
    best.push_back(std::move(items[order[i].second]));
  }
  items = std::move(best);
}

/// A row to insert; created_at/updated_at are set by the repository.
struct NewMemory {
  std::string kind;
  std::string subject;
  std::string content;
  std::string source = "chat";
  double confidence = 1.0;
  int64_t expires_at = 0;  ///< 0: never
};

/// A contradiction between a proposed memory and the persona, kept for the human.
struct MemoryConflict {
  int64_t id = 0;
  std::string memory_subject;
  std::string memory_content;
  std::string persona_excerpt;
  int64_t created_at = 0;
  bool resolved = false;
  int64_t memory_id = 0;  ///< the row that holds the contradiction; 0: none (never stored)
  int64_t told_at = 0;    ///< when the owner was told in the chat; 0: not yet
};

/// How the words of an FTS query combine.
enum class MatchMode { kAnyWord, kAllWords };

/// Turns free user text into a safe FTS5 MATCH expression: the text is split into words
/// (letters, digits and any non-ASCII character), each word is quoted as an FTS5 string, and
/// the words are joined with OR (kAnyWord) or AND (kAllWords). Quotes, operators (AND, OR,
/// NOT, NEAR), `*`, `:`, `^` and parentheses in the input are thereby plain text. At most 32
/// distinct words are kept. Returns "" when the text has no words (nothing can match).
std::string ftsQuery(std::string_view text, MatchMode mode = MatchMode::kAnyWord);

/// Repository over the memory tables. Thread-safe (takes store.mutex()).
class MemoryRepo {
 public:
  explicit MemoryRepo(Store& store) : store_(store) {}

  /// Inserts one row in a single statement; returns its id. Fails on an unknown kind or
  /// source (the schema's CHECK constraints).
  Result<int64_t> insert(const NewMemory& row);
  /// The row with this id, or nullopt.
  Result<std::optional<MemoryRow>> get(int64_t id);

  /// The `keep` rows that score best of the first `candidates` active rows (not expired at
  /// now_ms, not superseded) matching query, best FTS5 match first (bm25, subject weighted over
  /// content), whole, best score first (ties: the newer row). kAnyWord keeps only the query's
  /// informative words (rarest first, matching at most 200 rows together; a lone common word
  /// gives its newest rows, relevance 0), so the cost does not grow with the table; kAllWords
  /// requires every word. The candidates are ranked by the facts kept of every row (read in one
  /// pass by the first recall, store/memory_rank.h): only the kept ones are read whole.
  Result<std::vector<MemoryRow>> bestActive(std::string_view query, int candidates, int keep,
                                            int64_t now_ms, const MemoryScore& score,
                                            MatchMode mode = MatchMode::kAnyWord);
  /// Every row (active or not) matching the informative words of query (as bestActive),
  /// best match first: the operator's `gantry memory search`.
  Result<std::vector<MemoryRow>> search(std::string_view query, int limit);
  /// Rows newest first, optionally of one kind, at most limit (0: no limit).
  Result<std::vector<MemoryRow>> list(std::string_view kind = {}, int limit = 0);
  /// Active rows of the given kinds, newest first (by id, so the table itself is the index),
  /// at most limit.
  Result<std::vector<MemoryRow>> active(const std::vector<std::string>& kinds, int limit,
                                        int64_t now_ms);
  /// Number of rows in the table (for /status).
  Result<int64_t> count();

  /// Deletes the row and every row it transitively superseded (older versions of the same
  /// memory), in one transaction; returns what was removed (empty when the id is unknown).
  /// The FTS index follows through the delete trigger.
  Result<std::vector<MemoryRow>> forgetById(int64_t id);
  /// Deletes the active rows matching all words of query (at most limit), as forgetById does
  /// for each; returns what was removed.
  Result<std::vector<MemoryRow>> forgetByQuery(std::string_view query, int limit, int64_t now_ms);

  /// Marks row id as superseded by row by_id (a duplicate or an older version); never deletes.
  Status supersede(int64_t id, int64_t by_id);
  /// Sets expires_at of row id (0 clears it).
  Status setExpiry(int64_t id, int64_t expires_at);
  /// Deletes rows whose expires_at is at or before now_ms, with the rows they transitively
  /// superseded (as forgetById does); returns how many rows were removed.
  Result<int> purgeExpired(int64_t now_ms);

  /// Up to limit episodes not yet consolidated and not expired, oldest first.
  Result<std::vector<MemoryRow>> unconsolidatedEpisodes(int limit, int64_t now_ms);
  /// Sets consolidated = 1 on the given rows.
  Status markConsolidated(const std::vector<int64_t>& ids);

  /// Records a contradiction with the persona; returns its id. memory_id (0: none) is the row
  /// that holds it. Deleting that row (forgetById, forgetByQuery, an expiry) resolves it.
  Result<int64_t> insertConflict(const std::string& subject, const std::string& content,
                                 const std::string& persona_excerpt, int64_t memory_id = 0);
  /// Conflicts newest first; unresolved only unless include_resolved.
  Result<std::vector<MemoryConflict>> conflicts(bool include_resolved = false);
  /// Sets told_at of the given conflicts to now.
  Status markConflictsTold(const std::vector<int64_t>& ids);

 private:
  Store& store_;
};

}  // namespace gantry::store
