#include "memory/hydration.h"

#include <catch2/catch.hpp>
#include <set>

#include "memory/ranking.h"
#include "unit/memory/recall.h"
#include "unit/memory/temp_store.h"

using gantry::memory::hydrationBlock;
using gantry::store::MemoryRepo;
using gantry::store::MemoryRow;
using gantry::store::NewMemory;
using gantry::store::nowMs;
using gantry::testing::TempStore;

namespace {
void put(MemoryRepo& repo, const std::string& kind, const std::string& subject,
         const std::string& content, int64_t expires_at = 0) {
  REQUIRE(repo.insert(NewMemory{kind, subject, content, "chat", 1.0, expires_at}).isOk());
}
int lines(const std::string& block) {
  return static_cast<int>(std::count(block.begin(), block.end(), '\n'));
}
}  // namespace

TEST_CASE("an empty memory hydrates to nothing", "[memory]") {
  TempStore temp;
  MemoryRepo repo(temp.store());
  CHECK(hydrationBlock(repo, "hello there") == "");
}

TEST_CASE("hydration lists active durable rows and hits for the message", "[memory]") {
  TempStore temp;
  MemoryRepo repo(temp.store());
  put(repo, "person", "mom", "prefers calls over texts");
  put(repo, "episode", "concert", "went to a jazz concert");
  put(repo, "episode", "dentist", "tooth pulled");
  put(repo, "fact", "old", "expired fact", nowMs() - 1);
  std::string block = hydrationBlock(repo, "any good jazz tonight?");
  CHECK(block.rfind("[memory]\n", 0) == 0);
  CHECK(block.find("- (person) mom: prefers calls over texts\n") != std::string::npos);
  CHECK(block.find("- (episode) concert: went to a jazz concert\n") != std::string::npos);
  CHECK(block.find("dentist") == std::string::npos);  // an episode without a hit
  CHECK(block.find("expired") == std::string::npos);
}

TEST_CASE("hydration is capped at max_rows, relevant rows first", "[memory]") {
  TempStore temp;
  MemoryRepo repo(temp.store());
  for (int i = 0; i < 50; ++i) put(repo, "fact", "item " + std::to_string(i), "filler");
  put(repo, "fact", "boat", "a small sailing boat");
  std::string block = hydrationBlock(repo, "the boat", 30);
  CHECK(lines(block) == 31);
  CHECK(block.find("[memory]\n- (fact) boat: a small sailing boat\n") == 0);
  CHECK(lines(hydrationBlock(repo, "", 5)) == 6);
}

TEST_CASE("hydration keeps each row on one line", "[memory]") {
  TempStore temp;
  MemoryRepo repo(temp.store());
  put(repo, "preference", "tea", "green\nno sugar");
  CHECK(hydrationBlock(repo, "") == "[memory]\n- (preference) tea: green no sugar\n");
}

TEST_CASE("a rendered row is one line, its content cut whole characters short", "[memory]") {
  MemoryRow row;
  row.kind = "fact";
  row.subject = "two\tline\rsubject\n";
  row.content = "caf\u00e9\nau lait";  // the cut at 4 bytes falls inside the é
  CHECK(gantry::memory::renderRow(row, 4) == "(fact) two line subject : caf\u2026");
  CHECK(gantry::memory::renderRow(row, 5) == "(fact) two line subject : caf\u00e9\u2026");
  CHECK(gantry::memory::renderRow(row) == "(fact) two line subject : caf\u00e9 au lait");
}

TEST_CASE("ranking weighs relevance, recency and kind", "[memory]") {
  int64_t now = nowMs();
  MemoryRow fresh_fact;
  fresh_fact.kind = "fact";
  fresh_fact.updated_at = now;
  MemoryRow old_fact = fresh_fact;
  old_fact.updated_at = now - 90LL * 86400000;
  MemoryRow fresh_episode = fresh_fact;
  fresh_episode.kind = "episode";
  MemoryRow relevant_episode = fresh_episode;
  relevant_episode.relevance = 3.0;
  using gantry::memory::score;
  CHECK(score(fresh_fact, now) > score(old_fact, now));
  CHECK(score(fresh_fact, now) > score(fresh_episode, now));
  CHECK(score(relevant_episode, now) > score(fresh_fact, now));
  std::vector<MemoryRow> rows = {old_fact, relevant_episode, fresh_fact};
  rows[0].id = 1;
  rows[1].id = 2;
  rows[2].id = 3;
  gantry::memory::rank(rows, now, 2);
  REQUIRE(rows.size() == 2);
  CHECK(rows[0].id == 2);
  CHECK(rows[1].id == 3);
}

TEST_CASE("hydration ranks hits and durable rows as if every candidate were read", "[memory]") {
  TempStore temp;
  MemoryRepo repo(temp.store());
  for (int i = 0; i < 80; ++i) {
    put(repo, i % 3 == 0 ? "person" : "fact", "durable " + std::to_string(i),
        "kept for good, common" + std::string(i % 4 == 0 ? " harbour" : ""));
  }
  for (int i = 0; i < 70; ++i) {
    put(repo, i % 2 == 0 ? "episode" : "insight", "trip " + std::to_string(i),
        "sailing to the common harbour" + std::string(i % 5 == 0 ? " lighthouse" : ""));
  }
  const int64_t now = nowMs();
  const std::vector<std::string> durable_kinds = {"fact", "preference", "person"};
  // Many strong hits (the durable rows cannot place), a few, many without relevance (a word
  // too common to score), and none.
  for (const char* message :
       {"harbour sailing", "lighthouse", "common", "nothing matches this", ""}) {
    INFO(message);
    std::vector<MemoryRow> every;
    std::set<int64_t> seen;
    auto hits = gantry::testing::firstActiveHits(repo, message, 60, now);
    auto durable = repo.active(durable_kinds, 60, now);
    REQUIRE(durable.isOk());
    for (auto* batch : {&hits, &durable.value()}) {
      for (const auto& row : *batch) {
        if (seen.insert(row.id).second) every.push_back(row);
      }
    }
    gantry::memory::rank(every, now, 30);
    std::string expected = "[memory]\n";
    for (const auto& row : every) expected += "- " + gantry::memory::renderRow(row) + "\n";
    CHECK(hydrationBlock(repo, message, 30) == expected);
  }
}
