#pragma once
/// gantry_bm25(memory_fts, subject_weight, content_weight[, rows_matching_phrase...]): the
/// score FTS5's bm25() gives a memory hit, to the bit, with less work per recall. bm25() counts
/// the rows each phrase matches with a query of its own and reads each hit's length in tokens
/// from memory_fts_docsize, one lookup a hit: most of a recall's time, and the recall is a
/// turn's largest step (bench/README.md). MemoryRank keeps what a recall learns between recalls:
/// the rows each word is in (the recall's selective words, passed on as the counts), each
/// row's length in the index, and the ranking facts of every row (RowFacts, read in one pass by
/// the first recall), so that a recall reads whole only the rows it keeps. A row's length is
/// forgotten when this connection writes its docsize row (an update hook; a rebuild rewrites every
/// row, and a rolled back change stays forgotten, which costs a lookup), and the word counts with
/// it; a row's facts when this connection writes the row; everything when another connection has
/// committed (PRAGMA data_version). Included by store/*.cpp only; used under the Store's lock.

#include <cstdint>
#include <optional>
#include <string>
#include <unordered_map>
#include <vector>

struct sqlite3;

namespace gantry::store {

class PreparedCache;

/// What ranking a hit may use of its memory row besides the text, as the row holds it.
struct RowFacts {
  static constexpr uint8_t kUnknown = 0xff;

  int64_t updated_at = 0;
  /// Active before this time: INT64_MIN when superseded_by is set, INT64_MAX when expires_at
  /// is NULL, else expires_at (the recall's SQL: superseded_by IS NULL AND (expires_at IS
  /// NULL OR expires_at > now)).
  int64_t active_until = 0;
  uint8_t kind = kUnknown;  ///< index in kMemoryKinds (store/memory_repo.h)

  bool known() const { return kind != kUnknown; }
  bool activeAt(int64_t now_ms) const { return active_until > now_ms; }
  bool operator==(const RowFacts&) const = default;
};

class MemoryRank {
 public:
  MemoryRank() = default;
  MemoryRank(const MemoryRank&) = delete;
  MemoryRank& operator=(const MemoryRank&) = delete;

  /// Registers gantry_bm25 on db and watches its docsize rows; this object must outlive db's
  /// statements. False when db's SQLite has no FTS5.
  bool install(sqlite3* db);
  /// First thing in a recall's read transaction: forgets every length and word count when
  /// another connection has committed since the last one.
  void refresh(PreparedCache& prepared);

  /// Tokens of memory row id as the index holds them; 0 when not known.
  uint16_t length(int64_t id) const;
  void remember(int64_t id, int tokens);
  /// Row id's docsize row changed: its length, and every word's count, are not known.
  void forget(int64_t id);

  /// The rows that contain word, as counted (up to the recall's cap) since the index last
  /// changed; nullopt when not known.
  std::optional<int64_t> wordRows(const std::string& word) const;
  void rememberWordRows(const std::string& word, int64_t rows);

  /// The facts of memory row id as read since the row last changed; null when not known.
  const RowFacts* facts(int64_t id) const;
  void rememberFacts(int64_t id, const RowFacts& facts);
  /// Memory row id changed, or is gone.
  void forgetFacts(int64_t id);
  /// No row's facts are known, nor were they all read (factsRead()).
  void forgetAllFacts();
  /// Every row's facts were read (for ids below kFactsIdLimit) since another connection last
  /// committed; rows this connection wrote since are not known until read again.
  bool factsRead() const { return facts_read_; }
  void setFactsRead() { facts_read_ = true; }
  /// Rows at or above this id have no facts kept: 24 bytes a row up to it (1.5 MiB at most).
  static constexpr int64_t kFactsIdLimit = int64_t{1} << 16;

 private:
  void forgetAll();

  std::vector<uint16_t> lengths_;  ///< by row id; 0: not known
  std::vector<RowFacts> facts_;    ///< by row id
  bool facts_read_ = false;
  std::unordered_map<std::string, int64_t> word_rows_;
  int64_t data_version_ = -1;
};

}  // namespace gantry::store
