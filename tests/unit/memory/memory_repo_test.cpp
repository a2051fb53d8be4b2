#include "store/memory_repo.h"

#include <catch2/catch.hpp>

#include "unit/memory/recall.h"
#include "unit/memory/temp_store.h"

using gantry::store::ftsQuery;
using gantry::store::MatchMode;
using gantry::store::MemoryRepo;
using gantry::store::NewMemory;
using gantry::store::nowMs;
using gantry::testing::matchActive;
using gantry::testing::TempStore;

namespace {

int64_t put(MemoryRepo& repo, const std::string& kind, const std::string& subject,
            const std::string& content, int64_t expires_at = 0) {
  auto id = repo.insert(NewMemory{kind, subject, content, "chat", 1.0, expires_at});
  REQUIRE(id.isOk());
  return id.value();
}

std::vector<int64_t> ids(const std::vector<gantry::store::MemoryRow>& rows) {
  std::vector<int64_t> out;
  out.reserve(rows.size());
  for (const auto& row : rows) out.push_back(row.id);
  return out;
}

}  // namespace

TEST_CASE("the fts query quotes every word and joins them with OR", "[memory]") {
  CHECK(ftsQuery("mom phone") == R"("mom" OR "phone")");
  CHECK(ftsQuery("mom phone", MatchMode::kAllWords) == R"("mom" AND "phone")");
  CHECK(ftsQuery("mom mom") == R"("mom")");
  CHECK(ftsQuery("") == "");
  CHECK(ftsQuery("\"*:()^-+") == "");
}

TEST_CASE("the fts query turns operators and syntax into plain words", "[memory]") {
  CHECK(ftsQuery("a AND b OR NOT NEAR(c)") ==
        R"("a" OR "AND" OR "b" OR "OR" OR "NOT" OR "NEAR" OR "c")");
  CHECK(ftsQuery("subject:mom* \"unbalanced") == R"("subject" OR "mom" OR "unbalanced")");
}

TEST_CASE("hostile query text never breaks a search", "[memory]") {
  TempStore temp;
  MemoryRepo repo(temp.store());
  put(repo, "fact", "NEAR and NOT", "the words AND OR NOT are plain text here");
  for (const char* query :
       {"\"",          "\"\"\"",      "AND", "OR OR", "NOT",      "NEAR(a b)", "*",
        "mom*",        "subject:mom", "(",   ")",     "a) OR (b", "^start",    "-minus",
        "' OR 1=1 --", "{}",          "\\",  "—",     "💥",        "a\"b",      ""}) {
    INFO(query);
    auto rows = matchActive(repo, query, 10, nowMs());
    CHECK(rows.isOk());
  }
  auto operators = matchActive(repo, "NOT", 10, nowMs());
  REQUIRE(operators.isOk());
  CHECK(operators.value().size() == 1);
}

TEST_CASE("unicode text is stored and found, diacritics folded", "[memory]") {
  TempStore temp;
  MemoryRepo repo(temp.store());
  int64_t cafe = put(repo, "preference", "Zoë", "likes the café on Straße 5 — and 日本語");
  put(repo, "fact", "other", "nothing related");
  for (const char* query : {"café", "cafe", "Zoë", "zoe", "Straße", "日本語"}) {
    INFO(query);
    auto rows = matchActive(repo, query, 10, nowMs());
    REQUIRE(rows.isOk());
    CHECK(ids(rows.value()) == std::vector<int64_t>{cafe});
  }
}

TEST_CASE("insert returns the new id and the row reads back", "[memory]") {
  TempStore temp;
  MemoryRepo repo(temp.store());
  int64_t a = put(repo, "person", "mom", "prefers calls over texts");
  int64_t b = put(repo, "fact", "car", "a blue Volvo");
  CHECK(b > a);
  auto row = repo.get(a);
  REQUIRE(row.isOk());
  REQUIRE(row.value().has_value());
  CHECK(row.value()->kind == "person");
  CHECK(row.value()->subject == "mom");
  CHECK(row.value()->source == "chat");
  CHECK(row.value()->expires_at == 0);
  CHECK(repo.count().value() == 2);
}

TEST_CASE("an unknown kind or source is refused by the schema", "[memory]") {
  TempStore temp;
  MemoryRepo repo(temp.store());
  CHECK_FALSE(repo.insert(NewMemory{"rumour", "x", "y"}).isOk());
  NewMemory bad{"fact", "x", "y"};
  bad.source = "web";
  CHECK_FALSE(repo.insert(bad).isOk());
  CHECK(repo.count().value() == 0);
}

TEST_CASE("a subject match outranks a content match", "[memory]") {
  TempStore temp;
  MemoryRepo repo(temp.store());
  int64_t in_content = put(repo, "fact", "weekend", "visited the garden with a friend");
  int64_t in_subject = put(repo, "fact", "garden", "tomatoes grow by the fence");
  auto rows = matchActive(repo, "garden", 10, nowMs());
  REQUIRE(rows.isOk());
  CHECK(ids(rows.value()) == std::vector<int64_t>{in_subject, in_content});
  CHECK(rows.value()[0].relevance > 0);
}

TEST_CASE("expired and superseded rows are not active but remain searchable", "[memory]") {
  TempStore temp;
  MemoryRepo repo(temp.store());
  int64_t now = nowMs();
  int64_t expired = put(repo, "episode", "trip", "went to Rome", now - 1000);
  int64_t future = put(repo, "episode", "trip", "going to Rome in May", now + 100000);
  int64_t old = put(repo, "fact", "trip", "Rome is the plan");
  int64_t fresh = put(repo, "fact", "trip", "Rome is definitely the plan");
  REQUIRE(repo.supersede(old, fresh).isOk());
  auto active = matchActive(repo, "Rome", 10, now);
  REQUIRE(active.isOk());
  auto got = ids(active.value());
  std::sort(got.begin(), got.end());
  CHECK(got == std::vector<int64_t>{future, fresh});
  CHECK(repo.search("Rome", 10).value().size() == 4);
  auto durable = repo.active({"fact", "episode"}, 10, now);
  REQUIRE(durable.isOk());
  CHECK(durable.value().size() == 2);
  CHECK(repo.get(old).value()->superseded_by == fresh);
  CHECK_FALSE(repo.get(expired).value()->active(now));
}

TEST_CASE("purge removes expired rows and the rows they superseded", "[memory]") {
  TempStore temp;
  MemoryRepo repo(temp.store());
  int64_t now = nowMs();
  int64_t gone = put(repo, "episode", "lunch", "ate pasta", now - 10);
  int64_t older = put(repo, "episode", "lunch", "ate pasta (draft)");
  REQUIRE(repo.supersede(older, gone).isOk());
  int64_t kept = put(repo, "episode", "dinner", "ate soup", now + 60000);
  int64_t fact = put(repo, "fact", "food", "likes pasta");
  auto purged = repo.purgeExpired(now);
  REQUIRE(purged.isOk());
  CHECK(purged.value() == 2);
  CHECK_FALSE(repo.get(gone).value().has_value());
  CHECK_FALSE(repo.get(older).value().has_value());
  CHECK(repo.get(kept).value().has_value());
  CHECK(repo.get(fact).value().has_value());
  CHECK(repo.search("pasta", 10).value().size() == 1);  // the FTS index followed
}

TEST_CASE("forget by id deletes the row and its older versions and returns them", "[memory]") {
  TempStore temp;
  MemoryRepo repo(temp.store());
  int64_t v1 = put(repo, "fact", "dentist", "on Monday");
  int64_t v2 = put(repo, "fact", "dentist", "on Tuesday");
  int64_t other = put(repo, "fact", "gym", "on Monday");
  REQUIRE(repo.supersede(v1, v2).isOk());
  auto removed = repo.forgetById(v2);
  REQUIRE(removed.isOk());
  CHECK(ids(removed.value()) == std::vector<int64_t>{v1, v2});
  CHECK(repo.search("dentist", 10).value().empty());
  CHECK(ids(repo.search("Monday", 10).value()) == std::vector<int64_t>{other});
  auto unknown = repo.forgetById(999);
  REQUIRE(unknown.isOk());
  CHECK(unknown.value().empty());
}

TEST_CASE("forget by query removes only rows containing every word", "[memory]") {
  TempStore temp;
  MemoryRepo repo(temp.store());
  int64_t both = put(repo, "person", "mom", "phone number 555");
  int64_t one = put(repo, "person", "dad", "phone number 777");
  auto removed = repo.forgetByQuery("mom phone", 10, nowMs());
  REQUIRE(removed.isOk());
  CHECK(ids(removed.value()) == std::vector<int64_t>{both});
  CHECK(repo.get(one).value().has_value());
}

TEST_CASE("list filters by kind, newest first", "[memory]") {
  TempStore temp;
  MemoryRepo repo(temp.store());
  int64_t a = put(repo, "fact", "a", "one");
  put(repo, "person", "b", "two");
  int64_t c = put(repo, "fact", "c", "three");
  CHECK(ids(repo.list("fact").value()) == std::vector<int64_t>{c, a});
  CHECK(repo.list().value().size() == 3);
  CHECK(repo.list("", 1).value().size() == 1);
}

TEST_CASE("unconsolidated episodes come oldest first until marked", "[memory]") {
  TempStore temp;
  MemoryRepo repo(temp.store());
  int64_t now = nowMs();
  int64_t e1 = put(repo, "episode", "a", "one", now + 100000);
  int64_t e2 = put(repo, "episode", "b", "two", now + 100000);
  put(repo, "episode", "c", "expired", now - 1);
  put(repo, "fact", "d", "not an episode");
  CHECK(ids(repo.unconsolidatedEpisodes(10, now).value()) == std::vector<int64_t>{e1, e2});
  CHECK(ids(repo.unconsolidatedEpisodes(1, now).value()) == std::vector<int64_t>{e1});
  REQUIRE(repo.markConsolidated({e1}).isOk());
  CHECK(ids(repo.unconsolidatedEpisodes(10, now).value()) == std::vector<int64_t>{e2});
}

TEST_CASE("conflicts are recorded and listed newest first", "[memory]") {
  TempStore temp;
  MemoryRepo repo(temp.store());
  REQUIRE(repo.insertConflict("diet", "eats meat", "USER.md: vegetarian").isOk());
  REQUIRE(repo.insertConflict("city", "lives in Oslo", "USER.md: lives in Bergen").isOk());
  auto conflicts = repo.conflicts();
  REQUIRE(conflicts.isOk());
  REQUIRE(conflicts.value().size() == 2);
  CHECK(conflicts.value()[0].memory_subject == "city");
  CHECK(conflicts.value()[1].persona_excerpt == "USER.md: vegetarian");
}

TEST_CASE("recall ignores words that most rows contain, unless nothing else is left", "[memory]") {
  TempStore temp;
  MemoryRepo repo(temp.store());
  for (int i = 0; i < 150; ++i) put(repo, "fact", "note " + std::to_string(i), "the usual thing");
  int64_t boat = put(repo, "fact", "boat", "the sailing boat is blue");
  auto rows = matchActive(repo, "where is the boat", 5, nowMs());
  REQUIRE(rows.isOk());
  CHECK(ids(rows.value()) == std::vector<int64_t>{boat});
  auto common = matchActive(repo, "the usual", 5, nowMs());
  REQUIRE(common.isOk());
  CHECK(common.value().size() == 5);
  auto unknown = matchActive(repo, "zeppelin", 5, nowMs());
  REQUIRE(unknown.isOk());
  CHECK(unknown.value().empty());
}

TEST_CASE("a word's row count is read again once rows were added", "[memory]") {
  TempStore temp;
  MemoryRepo repo(temp.store());
  int64_t first = put(repo, "fact", "kayak", "a red kayak");
  auto rare = matchActive(repo, "kayak paddle", 5, nowMs());  // counts kayak as a rare word
  REQUIRE(rare.isOk());
  CHECK(ids(rare.value()) == std::vector<int64_t>{first});
  for (int i = 0; i < 150; ++i) put(repo, "fact", "trip " + std::to_string(i), "by kayak");
  int64_t paddle = put(repo, "fact", "paddle", "the paddle hangs in the shed");
  // kayak is now in most rows: a stale count would keep it and fill the result with trips.
  auto rows = matchActive(repo, "kayak paddle", 5, nowMs());
  REQUIRE(rows.isOk());
  CHECK(ids(rows.value()) == std::vector<int64_t>{paddle});
}

TEST_CASE("a search ranks every hit once however many rows the join drops", "[memory]") {
  TempStore temp;
  MemoryRepo repo(temp.store());
  int64_t best = put(repo, "fact", "harbour", "the harbour harbour master");
  int64_t old = put(repo, "fact", "harbour", "the harbour master retired");
  int64_t next = put(repo, "fact", "town", "a harbour town");
  REQUIRE(repo.supersede(old, best).isOk());
  // The superseded row ranks between the others: the limit counts the active rows only.
  auto rows = matchActive(repo, "harbour", 2, nowMs());
  REQUIRE(rows.isOk());
  CHECK(ids(rows.value()) == std::vector<int64_t>{best, next});
  CHECK(rows.value()[0].relevance > rows.value()[1].relevance);
  auto all = repo.search("harbour", 3);
  REQUIRE(all.isOk());
  CHECK(ids(all.value()) == std::vector<int64_t>{best, old, next});
}

TEST_CASE("a recall reads further hits while the best ones are not active", "[memory]") {
  TempStore temp;
  MemoryRepo repo(temp.store());
  int64_t other = put(repo, "fact", "elsewhere", "unrelated words");
  std::vector<int64_t> by_rank;  // six words each: more of them "harbour", a higher bm25
  for (int k = 6; k >= 1; --k) {
    std::string content;
    for (int i = 0; i < 6; ++i) content += i < k ? "harbour " : "quay ";
    by_rank.push_back(put(repo, "fact", "note", content));
  }
  for (int i = 0; i < 4; ++i) REQUIRE(repo.supersede(by_rank[i], other).isOk());
  auto rows = matchActive(repo, "harbour", 2, nowMs());
  REQUIRE(rows.isOk());
  CHECK(ids(rows.value()) == std::vector<int64_t>{by_rank[4], by_rank[5]});
  CHECK(rows.value()[0].relevance > rows.value()[1].relevance);
  auto all = repo.search("harbour", 3);  // the operator's search sees superseded rows too
  REQUIRE(all.isOk());
  CHECK(ids(all.value()) == std::vector<int64_t>{by_rank[0], by_rank[1], by_rank[2]});
}

TEST_CASE("hits of equal relevance come newest first", "[memory]") {
  TempStore temp;
  MemoryRepo repo(temp.store());
  int64_t first = put(repo, "fact", "lamp", "the brass lamp");
  int64_t second = put(repo, "fact", "lamp", "the brass lamp");
  auto rows = matchActive(repo, "lamp", 5, nowMs());
  REQUIRE(rows.isOk());
  CHECK(ids(rows.value()) == std::vector<int64_t>{second, first});
}
