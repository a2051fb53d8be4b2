// A recall reads every row's ranking facts in one pass and then reads whole only the
// candidates it keeps (store/memory_rank.h): what it keeps is what ranking every candidate read
// whole keeps, however the rows changed since their facts were read.

#include <catch2/catch.hpp>
#include <limits>
#include <random>
#include <string>
#include <vector>

#include "memory/ranking.h"
#include "store/db.h"
#include "store/memory_repo.h"
#include "unit/memory/other_connection.h"
#include "unit/memory/recall.h"
#include "unit/memory/temp_store.h"

using gantry::store::MemoryRank;
using gantry::store::MemoryRepo;
using gantry::store::MemoryRow;
using gantry::store::NewMemory;
using gantry::store::nowMs;
using gantry::store::RowFacts;
using gantry::testing::OtherConnection;
using gantry::testing::TempStore;

namespace {

const std::vector<std::string> kWords = {"harbour", "lamp",  "violin", "garden", "kayak",
                                         "river",   "bread", "letter", "stone",  "window",
                                         "cello",   "paper", "orange", "bridge", "candle"};
const std::vector<std::string> kKinds = {"fact", "preference", "person", "episode", "insight"};

struct Rows {
  TempStore temp;
  MemoryRepo repo{temp.store()};
  OtherConnection other{temp.path()};
  std::mt19937 random{7};
  std::vector<int64_t> ids;

  std::string words(int n) {
    std::string text;
    for (int i = 0; i < n; ++i) {
      text += kWords[random() % kWords.size()];
      text += ' ';
    }
    return text;
  }

  int64_t put(const std::string& kind, int64_t expires_at = 0) {
    auto id = repo.insert(NewMemory{kind, words(2), words(1 + static_cast<int>(random() % 6)),
                                    "chat", 1.0, expires_at});
    REQUIRE(id.isOk());
    ids.push_back(id.value());
    return id.value();
  }

  int64_t any() { return ids[random() % ids.size()]; }

  /// Two different rows.
  std::pair<int64_t, int64_t> two() {
    const int64_t a = any();
    int64_t b = any();
    while (b == a) b = any();
    return {a, b};
  }

  /// Forgets a row and what it superseded; they leave ids.
  void forgetOne() {
    auto gone = repo.forgetById(any());
    REQUIRE(gone.isOk());
    for (const auto& row : gone.value()) std::erase(ids, row.id);
  }
};

std::string describe(const std::vector<MemoryRow>& rows) {
  std::string out;
  for (const auto& row : rows) out += std::to_string(row.id) + " ";
  return out;
}

/// The recall keeps what ranking its candidates read whole keeps: the same rows, whole, with
/// their relevance, in the same order. The recall runs first: reading the candidates whole
/// for the comparison keeps their facts.
void expectRankedAsIfReadWhole(MemoryRepo& repo, const std::string& query) {
  INFO("query: " << query);
  const int64_t now = nowMs();
  auto got = repo.bestActive(
      query, 12, 5, now, [now](const MemoryRow& row) { return gantry::memory::score(row, now); });
  REQUIRE(got.isOk());
  auto expected = gantry::testing::firstActiveHits(repo, query, 12, now);
  gantry::memory::rank(expected, now, 5);
  INFO("got " << describe(got.value()) << "expected " << describe(expected));
  REQUIRE(got.value().size() == expected.size());
  for (std::size_t i = 0; i < expected.size(); ++i) {
    const MemoryRow& a = got.value()[i];
    const MemoryRow& b = expected[i];
    CHECK(a.id == b.id);
    CHECK(a.relevance == b.relevance);
    CHECK(a.kind == b.kind);
    CHECK(a.subject == b.subject);
    CHECK(a.content == b.content);
    CHECK(a.updated_at == b.updated_at);
    CHECK(a.expires_at == b.expires_at);
  }
}

void expectRankedAsIfReadWhole(MemoryRepo& repo, const std::vector<std::string>& queries) {
  for (const auto& query : queries) expectRankedAsIfReadWhole(repo, query);
}

std::vector<std::string> someQueries(Rows& rows) {
  std::vector<std::string> queries;
  queries.reserve(30);
  for (int i = 0; i < 30; ++i) queries.push_back(rows.words(1 + i % 4));
  return queries;
}

/// A planted RowFacts for row id, as the pass over every row would have kept it.
void plant(TempStore& temp, int64_t id, const RowFacts& facts) {
  temp.store().db().memory_rank.rememberFacts(id, facts);
  temp.store().db().memory_rank.setFactsRead();
}

uint8_t kindIndex(const std::string& kind) {
  return static_cast<uint8_t>(std::find(kKinds.begin(), kKinds.end(), kind) - kKinds.begin());
}

}  // namespace

TEST_CASE("a recall keeps what ranking every candidate read whole keeps, as rows change",
          "[memory]") {
  Rows rows;
  const int64_t now = nowMs();
  for (int i = 0; i < 240; ++i) {
    const std::string& kind = kKinds[static_cast<std::size_t>(i) % kKinds.size()];
    const int64_t expires = i % 9 == 0 ? now - 1000 : i % 11 == 0 ? now + 3600000 : 0;
    rows.put(kind, expires);
  }
  // Ages from a day to a year, so that recency and kind reorder what relevance ranks.
  rows.other.exec("UPDATE memory SET updated_at = updated_at - (id * 7919 % 365 + 1) * 86400000");
  const auto queries = someQueries(rows);
  expectRankedAsIfReadWhole(rows.repo, queries);  // reads the facts
  expectRankedAsIfReadWhole(rows.repo, queries);  // ranks by them

  SECTION("this connection supersedes, expires, forgets and adds rows") {
    for (int i = 0; i < 8; ++i) {
      const auto [old, by] = rows.two();
      REQUIRE(rows.repo.supersede(old, by).isOk());
      REQUIRE(rows.repo.setExpiry(rows.any(), now - 1).isOk());
      REQUIRE(rows.repo.setExpiry(rows.any(), 0).isOk());
      rows.forgetOne();
      REQUIRE(rows.repo.markConsolidated({rows.any()}).isOk());
      rows.put(kKinds[static_cast<std::size_t>(i) % kKinds.size()]);
      expectRankedAsIfReadWhole(rows.repo, queries);
    }
  }
  SECTION("another connection changes when rows were updated, their kind and their state") {
    rows.other.exec("UPDATE memory SET updated_at = updated_at + 200 * 86400000 WHERE id % 4 = 0");
    expectRankedAsIfReadWhole(rows.repo, queries);
    rows.other.exec("UPDATE memory SET kind = 'person' WHERE id % 5 = 1");
    expectRankedAsIfReadWhole(rows.repo, queries);
    rows.other.exec("UPDATE memory SET superseded_by = id + 1 WHERE id % 7 = 2");
    expectRankedAsIfReadWhole(rows.repo, queries);
    rows.other.exec("UPDATE memory SET expires_at = 1 WHERE id % 6 = 3");
    expectRankedAsIfReadWhole(rows.repo, queries);
  }
}

TEST_CASE("a recall does not read the candidates it leaves out once it knows their facts",
          "[memory]") {
  TempStore temp;
  MemoryRepo repo(temp.store());
  const int64_t best =
      repo.insert(NewMemory{"fact", "harbour", "the harbour master", "chat", 1.0, 0}).value();
  const int64_t other =
      repo.insert(NewMemory{"fact", "town", "a harbour town", "chat", 1.0, 0}).value();
  const int64_t now = nowMs();
  auto score = [now](const MemoryRow& row) { return gantry::memory::score(row, now); };
  auto first = repo.bestActive("harbour", 10, 1, now, score);
  REQUIRE(first.isOk());
  REQUIRE(first.value().size() == 1);
  CHECK(first.value()[0].id == best);
  // What the store kept of the best row, altered as if it had been superseded: the recall
  // believes it without reading the row, so the row it keeps is the other one.
  const RowFacts* kept = temp.store().db().memory_rank.facts(best);
  REQUIRE(kept != nullptr);
  RowFacts superseded = *kept;
  superseded.active_until = std::numeric_limits<int64_t>::min();
  plant(temp, best, superseded);
  auto second = repo.bestActive("harbour", 10, 1, now, score);
  REQUIRE(second.isOk());
  REQUIRE(second.value().size() == 1);
  CHECK(second.value()[0].id == other);
}

TEST_CASE("a kept candidate whose row holds other facts than were kept is ranked again whole",
          "[memory]") {
  Rows rows;
  for (int i = 0; i < 60; ++i) rows.put(i % 2 == 0 ? "episode" : "fact");
  rows.other.exec("UPDATE memory SET updated_at = updated_at - id * 86400000");
  // Every row believed a person's, updated just now: each query's weakest candidate would
  // rank first if the recall trusted what it kept over the rows it reads.
  RowFacts lie;
  lie.updated_at = nowMs();
  lie.active_until = std::numeric_limits<int64_t>::max();
  lie.kind = kindIndex("person");
  for (const auto& query : someQueries(rows)) {
    for (int64_t id : rows.ids) plant(rows.temp, id, lie);
    expectRankedAsIfReadWhole(rows.repo, query);
  }
}

TEST_CASE("the facts kept of a row are forgotten when it changes", "[memory]") {
  Rows rows;
  for (int i = 0; i < 6; ++i) rows.put("fact");
  const int64_t now = nowMs();
  auto& rank = rows.temp.store().db().memory_rank;
  auto learn = [&] {
    REQUIRE(rows.repo.search(kWords[0] + " " + kWords[1], 100).isOk());  // reads every hit
    for (const auto& word : kWords) REQUIRE(rows.repo.search(word, 100).isOk());
    for (int64_t id : rows.ids) REQUIRE(rank.facts(id) != nullptr);
  };
  learn();
  REQUIRE(rows.repo.supersede(rows.ids[0], rows.ids[1]).isOk());
  CHECK(rank.facts(rows.ids[0]) == nullptr);
  REQUIRE(rows.repo.setExpiry(rows.ids[2], now + 1000).isOk());
  CHECK(rank.facts(rows.ids[2]) == nullptr);
  REQUIRE(rows.repo.markConsolidated({rows.ids[3]}).isOk());
  CHECK(rank.facts(rows.ids[3]) == nullptr);
  CHECK(rank.facts(rows.ids[4]) != nullptr);  // untouched
  REQUIRE(rows.repo.forgetById(rows.ids[4]).isOk());
  CHECK(rank.facts(rows.ids[4]) == nullptr);
  // Another connection's commit: the next recall finds it (PRAGMA data_version) before
  // using anything it kept.
  rows.ids.erase(rows.ids.begin() + 4);
  learn();
  rows.other.exec("UPDATE memory SET updated_at = 1 WHERE id = " + std::to_string(rows.ids.back()));
  REQUIRE(rows.repo.search("nothing-matches-this", 10).isOk());
  for (int64_t id : rows.ids) CHECK(rank.facts(id) == nullptr);
}

TEST_CASE("a recall reads every row's facts once, and again after another connection wrote",
          "[memory]") {
  Rows rows;
  for (int i = 0; i < 20; ++i) rows.put("fact");
  auto& rank = rows.temp.store().db().memory_rank;
  const int64_t now = nowMs();
  auto recall = [&](const std::string& query) {
    auto got = rows.repo.bestActive(
        query, 10, 5, now, [now](const MemoryRow& row) { return gantry::memory::score(row, now); });
    REQUIRE(got.isOk());
    return got.value();
  };
  CHECK_FALSE(rank.factsRead());
  recall("zeppelin");  // nothing to rank: nothing read
  CHECK_FALSE(rank.factsRead());
  recall("zeppelin " + kWords[0]);
  CHECK(rank.factsRead());
  for (int64_t id : rows.ids) CHECK(rank.facts(id) != nullptr);  // hits or not
  // A row this connection adds is read when a recall needs it; the others stay known.
  const int64_t added = rows.put("person");
  CHECK(rank.facts(added) == nullptr);
  CHECK(rank.factsRead());
  expectRankedAsIfReadWhole(rows.repo, someQueries(rows));
  // Another connection's write: everything is read again, as it now is.
  rows.other.exec("UPDATE memory SET kind = 'episode' WHERE id = " + std::to_string(rows.ids[0]));
  recall(kWords[0]);
  CHECK(rank.factsRead());
  REQUIRE(rank.facts(rows.ids[0]) != nullptr);
  CHECK(rank.facts(rows.ids[0])->kind == kindIndex("episode"));
  for (int64_t id : rows.ids) CHECK(rank.facts(id) != nullptr);  // the added row among them
  // Rows past the ids kept have no facts kept, and are recalled all the same.
  const int64_t far = MemoryRank::kFactsIdLimit + 10;
  rows.other.exec(
      "INSERT INTO memory(id, kind, subject, content, source, confidence, created_at, "
      "updated_at) VALUES (" +
      std::to_string(far) + ", 'fact', 'zeppelin', 'a zeppelin over the harbour', 'chat', 1.0, " +
      std::to_string(now) + ", " + std::to_string(now) + ")");
  const auto found = recall("zeppelin");
  CHECK(rank.facts(far) == nullptr);
  REQUIRE(found.size() == 1);
  CHECK(found[0].id == far);
  CHECK(found[0].content == "a zeppelin over the harbour");
}
