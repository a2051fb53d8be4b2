// A recall's relevance is FTS5's own bm25 (subject weighing twice the content), to the bit,
// however the index changed since the lengths and counts it keeps were read.

#include <sqlite3.h>

#include <catch2/catch.hpp>
#include <map>
#include <string>

#include "store/maintenance.h"
#include "store/memory_repo.h"
#include "unit/memory/other_connection.h"
#include "unit/memory/recall.h"
#include "unit/memory/temp_store.h"

using gantry::store::ftsQuery;
using gantry::store::MatchMode;
using gantry::store::MemoryRepo;
using gantry::store::MemoryRow;
using gantry::store::NewMemory;
using gantry::testing::matchActive;
using gantry::testing::TempStore;

namespace {

/// A second connection to the store's file: FTS5's bm25 as the reference, and another
/// writer.
class Reference : public gantry::testing::OtherConnection {
 public:
  using OtherConnection::OtherConnection;

  /// -bm25(memory_fts, 2.0, 1.0) of every hit of the query of words, by row id.
  std::map<int64_t, double> scores(const std::string& words, MatchMode mode = MatchMode::kAnyWord) {
    sqlite3_stmt* q = nullptr;
    REQUIRE(sqlite3_prepare_v2(handle(),
                               "SELECT rowid, -bm25(memory_fts, 2.0, 1.0) FROM memory_fts "
                               "WHERE memory_fts MATCH ?",
                               -1, &q, nullptr) == SQLITE_OK);
    const std::string match = ftsQuery(words, mode);
    sqlite3_bind_text(q, 1, match.c_str(), -1, SQLITE_TRANSIENT);
    std::map<int64_t, double> out;
    while (sqlite3_step(q) == SQLITE_ROW)
      out[sqlite3_column_int64(q, 0)] = sqlite3_column_double(q, 1);
    sqlite3_finalize(q);
    return out;
  }
};

int64_t put(MemoryRepo& repo, const std::string& subject, const std::string& content) {
  auto id = repo.insert(NewMemory{"fact", subject, content, "chat", 1.0, 0});
  REQUIRE(id.isOk());
  return id.value();
}

/// Rows of varied length; "violin" is in 3 rows, "cello" in 6, "oboe" in 9 (never more than
/// the 5% a recall still scores), each in the subject of some.
void fill(MemoryRepo& repo) {
  for (int i = 0; i < 200; ++i) {
    std::string content = "note " + std::to_string(i);
    for (int w = 0; w < i % 13; ++w) content += " filler" + std::to_string(w);
    std::string subject = "entry";
    if (i % 67 == 5) (i % 2 == 0 ? subject : content) += " violin";
    if (i % 33 == 7) (i % 3 == 0 ? subject : content) += " cello cello";
    if (i % 22 == 3) (i % 4 == 0 ? subject : content) += " oboe";
    put(repo, subject, content);
  }
}

/// Every row's relevance equals the reference's score, bit for bit, and no hit is missing.
void expectRelevances(const gantry::Result<std::vector<MemoryRow>>& rows,
                      const std::map<int64_t, double>& expected) {
  REQUIRE(!expected.empty());
  REQUIRE(rows.isOk());
  CHECK(rows.value().size() == expected.size());
  for (const auto& row : rows.value()) {
    INFO("row " << row.id);
    REQUIRE(expected.count(row.id) == 1);
    CHECK(row.relevance == expected.at(row.id));
  }
}

/// The recall's relevance of every hit of words (rarest first, the order the recall scores
/// them in) is the reference's.
void expectFtsScores(MemoryRepo& repo, Reference& reference, const std::string& words) {
  INFO("query: " << words);
  expectRelevances(repo.search(words, 1000), reference.scores(words));
}

/// A store filled as fill() does, its memory repository and a reference connection to it.
struct Filled {
  TempStore temp;
  MemoryRepo repo{temp.store()};
  Reference reference{temp.path()};
  Filled() { fill(repo); }

  void expectAllScores() {
    for (const char* words : {"violin", "cello", "oboe", "violin cello", "violin cello oboe"}) {
      expectFtsScores(repo, reference, words);
    }
  }
};

}  // namespace

TEST_CASE("a recall scores as FTS5's bm25 does", "[memory]") {
  Filled f;
  f.expectAllScores();
  f.expectAllScores();  // again, from the lengths and counts kept
}

TEST_CASE("words FTS5 holds no token for count as in no row, beside words it holds", "[memory]") {
  Filled f;
  // Words to the recall (bytes above ASCII) that the tokenizer treats as separators: they
  // count as in no row and leave the real words' scores as bm25 gives them.
  const auto mixed = f.repo.search("\u2605 violin \u2014 cello", 1000);
  REQUIRE(mixed.isOk());
  expectRelevances(mixed, f.reference.scores("violin cello"));
  const auto symbols = f.repo.search("\u2605 \u2014", 10);
  REQUIRE(symbols.isOk());
  CHECK(symbols.value().empty());
}

TEST_CASE("a search for every word scores as FTS5's bm25 does, counting the rows itself",
          "[memory]") {
  Filled f;
  put(f.repo, "violin and cello", "a duet for violin and cello");
  put(f.repo, "cello", "the violin case fits a cello bow, cello cello");
  const auto expected = f.reference.scores("violin cello", MatchMode::kAllWords);
  CHECK(expected.size() >= 2);
  expectRelevances(
      matchActive(f.repo, "violin cello", 100, gantry::store::nowMs(), MatchMode::kAllWords),
      expected);
}

TEST_CASE("a recall scores as bm25 after this connection changed the index", "[memory]") {
  Filled f;
  f.expectAllScores();
  // A deleted hit changes the counts without changing the largest id.
  auto cellos = f.repo.search("cello", 1);
  REQUIRE(cellos.isOk());
  REQUIRE(f.repo.forgetById(cellos.value().front().id).isOk());
  f.expectAllScores();
  // The newest row deleted, its id is taken again by a row of another length.
  const int64_t last = put(f.repo, "violin", "a short one");
  f.expectAllScores();
  REQUIRE(f.repo.forgetById(last).isOk());
  REQUIRE(put(f.repo, "violin", "a much longer row about the violin and its bow and its case") ==
          last);
  f.expectAllScores();
}

TEST_CASE("a recall scores as bm25 after another connection changed the index", "[memory]") {
  Filled f;
  f.expectAllScores();
  auto violins = f.repo.search("violin", 10);
  REQUIRE(violins.isOk());
  const int64_t id = violins.value().front().id;
  // Same rows, same ids: only the lengths differ.
  f.reference.exec(
      "UPDATE memory SET content = content || ' and a great many more words here' "
      "WHERE id = " +
      std::to_string(id));
  f.expectAllScores();
  f.reference.exec("UPDATE memory SET subject = 'entry', content = 'oboe' WHERE id = " +
                   std::to_string(id));
  f.expectAllScores();
}

TEST_CASE("a recall scores as bm25 after the index was rebuilt", "[memory]") {
  Filled f;
  // Rows changed behind the index's back: it keeps their old lengths until rebuilt.
  f.reference.exec(
      "DROP TRIGGER memory_au; "
      "UPDATE memory SET content = content || ' with words the index has not seen yet' "
      "WHERE id % 3 = 0");
  f.expectAllScores();
  REQUIRE(gantry::store::rebuildFts(f.temp.store()).isOk());
  f.expectAllScores();
}
