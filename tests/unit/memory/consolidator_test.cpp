#include "memory/consolidator.h"

#include <catch2/catch.hpp>

#include "store/session_repo.h"
#include "unit/memory/temp_store.h"
#include "unit/session/scripted_provider.h"

using gantry::CancelToken;
using gantry::Status;
using gantry::memory::Consolidator;
using gantry::memory::parseProposal;
using gantry::store::MemoryRepo;
using gantry::store::NewMemory;
using gantry::store::nowMs;
using gantry::testing::ScriptedProvider;
using gantry::testing::TempStore;

namespace {

const char* kPersona = "# USER.md\nThe user is vegetarian and lives in Bergen.";

int64_t episode(MemoryRepo& repo, const std::string& subject, const std::string& content) {
  auto id = repo.insert(NewMemory{"episode", subject, content, "chat", 1.0, nowMs() + 3600000});
  REQUIRE(id.isOk());
  return id.value();
}

std::size_t countSource(MemoryRepo& repo, const std::string& source) {
  auto rows = repo.list().value();
  return static_cast<std::size_t>(std::count_if(
      rows.begin(), rows.end(), [&](const auto& row) { return row.source == source; }));
}

}  // namespace

TEST_CASE("consolidation writes proposed rows with source consolidation", "[memory]") {
  TempStore temp;
  MemoryRepo repo(temp.store());
  int64_t e1 = episode(repo, "call", "talked to Ann about her move to Lisbon");
  ScriptedProvider provider;
  provider.reply(R"({"memories":[{"kind":"person","subject":"Ann","content":"moving to Lisbon",)"
                 R"("confidence":0.9},{"kind":"insight","subject":"family","content":"close"}],)"
                 R"("conflicts":[]})");
  Consolidator consolidator(temp.store(), provider, kPersona);
  CancelToken cancel;
  auto report = consolidator.runOnce(cancel);
  REQUIRE(report.isOk());
  CHECK(report->written == 2);
  CHECK(report->episodes == 1);
  CHECK(countSource(repo, "consolidation") == 2);
  CHECK(repo.get(e1).value()->consolidated);
  auto ann = repo.search("Lisbon", 10).value();
  REQUIRE(ann.size() == 2);
  REQUIRE(provider.requests.size() == 1);
  const std::string& input = provider.requests[0][1].content;
  CHECK(input.find("vegetarian") != std::string::npos);
  CHECK(input.find("#" + std::to_string(e1) + " (episode) call:") != std::string::npos);
  CHECK(provider.requests[0][0].content.find("\"memories\"") != std::string::npos);
  CHECK_FALSE(provider.tools_offered[0]);
}

TEST_CASE("a malformed consolidation reply writes nothing", "[memory]") {
  for (const char* reply : {"not json at all", R"({"memories":[{"kind":"fact",)",
                            R"({"memories":"oops"})", "[1,2,3]"}) {
    INFO(reply);
    TempStore temp;
    MemoryRepo repo(temp.store());
    int64_t e1 = episode(repo, "a", "something happened");
    ScriptedProvider provider;
    provider.reply(reply);
    Consolidator consolidator(temp.store(), provider, kPersona);
    CancelToken cancel;
    auto report = consolidator.runOnce(cancel);
    CHECK_FALSE(report.isOk());
    CHECK(repo.count().value() == 1);
    CHECK(repo.conflicts().value().empty());
    CHECK_FALSE(repo.get(e1).value()->consolidated);  // retried by the next pass
  }
}

TEST_CASE("a failed model call writes nothing", "[memory]") {
  TempStore temp;
  MemoryRepo repo(temp.store());
  episode(repo, "a", "b");
  ScriptedProvider provider;
  provider.fail(Status::retry("HTTP 503"));
  Consolidator consolidator(temp.store(), provider, kPersona);
  CancelToken cancel;
  auto report = consolidator.runOnce(cancel);
  REQUIRE_FALSE(report.isOk());
  CHECK(report.status().message().find("HTTP 503") != std::string::npos);
  CHECK(repo.count().value() == 1);
}

TEST_CASE("duplicates are linked through superseded_by, never deleted", "[memory]") {
  TempStore temp;
  MemoryRepo repo(temp.store());
  int64_t old = repo.insert(NewMemory{"fact", "dentist", "appointment on Monday"}).value();
  int64_t same = repo.insert(NewMemory{"preference", "tea", "green, no sugar"}).value();
  episode(repo, "dentist", "moved the appointment to Tuesday");
  ScriptedProvider provider;
  provider.reply(
      "```json\n{\"memories\":[{\"kind\":\"fact\",\"subject\":\"dentist\",\"content\":"
      "\"appointment on Tuesday\",\"supersedes\":[" +
      std::to_string(old) +
      ",999]},{\"kind\":\"preference\",\"subject\":\"Tea\","
      "\"content\":\"Green, no sugar.\"}]}\n```");
  Consolidator consolidator(temp.store(), provider, kPersona);
  CancelToken cancel;
  auto report = consolidator.runOnce(cancel);
  REQUIRE(report.isOk());
  CHECK(report->written == 1);
  CHECK(report->duplicates == 1);
  CHECK(report->superseded == 1);
  auto old_row = repo.get(old).value();
  REQUIRE(old_row.has_value());  // kept
  CHECK(old_row->superseded_by != 0);
  CHECK(repo.get(old_row->superseded_by).value()->content == "appointment on Tuesday");
  CHECK(repo.get(same).value()->superseded_by == 0);
}

TEST_CASE("contradictions with the persona are recorded, not stored", "[memory]") {
  TempStore temp;
  MemoryRepo repo(temp.store());
  episode(repo, "dinner", "ordered a steak");
  ScriptedProvider provider;
  provider.reply(R"({"memories":[{"kind":"preference","subject":"diet","content":"eats meat"}],)"
                 R"("conflicts":[{"subject":"diet","content":"eats meat",)"
                 R"("persona_excerpt":"The user is vegetarian"}]})");
  std::string persona = kPersona;
  Consolidator consolidator(temp.store(), provider, persona);
  CancelToken cancel;
  auto report = consolidator.runOnce(cancel);
  REQUIRE(report.isOk());
  CHECK(report->conflicts == 1);
  CHECK(report->written == 0);
  auto conflicts = repo.conflicts().value();
  REQUIRE(conflicts.size() == 1);
  // The whole persona line the excerpt is found in.
  CHECK(conflicts[0].persona_excerpt == "The user is vegetarian and lives in Bergen.");
  CHECK(repo.search("meat", 10).value().empty());
  CHECK(persona == kPersona);
}

TEST_CASE("a conflict names the shown row that holds it and the persona line it contradicts",
          "[memory]") {
  TempStore temp;
  MemoryRepo repo(temp.store());
  int64_t meat = repo.insert(NewMemory{"preference", "diet", "eats meat", "chat", 1.0, 0}).value();
  int64_t e1 = episode(repo, "dinner", "ordered a steak");
  ScriptedProvider provider;
  provider.reply(R"({"memories":[],"conflicts":[)"
                 R"({"subject":"diet","content":"eats meat","persona_excerpt":"user is )"
                 R"(vegetarian","memory_id":)" +
                 std::to_string(meat) +
                 R"(},{"subject":"dinner","content":"steak","persona_excerpt":"vegetarian",)"
                 R"("memory_id":)" +
                 std::to_string(e1) +
                 R"(},{"subject":"x","content":"y","persona_excerpt":"vegetarian",)"
                 R"("memory_id":999},)"
                 R"({"subject":"z","content":"w","persona_excerpt":"likes opera",)"
                 R"("memory_id":)" +
                 std::to_string(meat) + "}]}");
  Consolidator consolidator(temp.store(), provider, kPersona);
  CancelToken cancel;
  REQUIRE(consolidator.runOnce(cancel).isOk());
  auto conflicts = repo.conflicts().value();  // newest first
  REQUIRE(conflicts.size() == 4);
  CHECK(conflicts[3].memory_id == meat);
  CHECK(conflicts[3].persona_excerpt == "The user is vegetarian and lives in Bergen.");
  CHECK(conflicts[2].memory_id == e1);
  CHECK(conflicts[1].memory_id == 0);  // never shown
  CHECK(conflicts[0].memory_id == 0);  // not in the persona
  CHECK(conflicts[0].persona_excerpt == "likes opera");
  CHECK(provider.requests[0][0].content.find("\"memory_id\"") != std::string::npos);
}

TEST_CASE("a pass with nothing to read skips the model and purges expired rows", "[memory]") {
  TempStore temp;
  MemoryRepo repo(temp.store());
  REQUIRE(repo.insert(NewMemory{"episode", "old", "long ago", "chat", 1.0, nowMs() - 1}).isOk());
  ScriptedProvider provider;
  Consolidator consolidator(temp.store(), provider, kPersona);
  CancelToken cancel;
  auto report = consolidator.runOnce(cancel);
  REQUIRE(report.isOk());
  CHECK(report->skipped);
  CHECK(report->purged == 1);
  CHECK(provider.requests.empty());
  CHECK(repo.count().value() == 0);
}

TEST_CASE("recent session summaries are read once", "[memory]") {
  TempStore temp;
  gantry::store::SessionRepo sessions(temp.store());
  auto id = sessions.open("chat-1");
  REQUIRE(id.isOk());
  REQUIRE(sessions.setSummary(id.value(), "The user plans a trip to Kyoto in April.").isOk());
  ScriptedProvider provider;
  provider.reply(R"({"memories":[{"kind":"fact","subject":"trip","content":"Kyoto in April"}]})");
  Consolidator consolidator(temp.store(), provider, kPersona);
  CancelToken cancel;
  auto first = consolidator.runOnce(cancel);
  REQUIRE(first.isOk());
  CHECK(first->summaries == 1);
  CHECK(provider.requests[0][1].content.find("Kyoto in April") != std::string::npos);
  auto second = consolidator.runOnce(cancel);
  REQUIRE(second.isOk());
  CHECK(second->skipped);
  CHECK(provider.requests.size() == 1);
}

TEST_CASE("the consolidation batch is bounded", "[memory]") {
  TempStore temp;
  MemoryRepo repo(temp.store());
  for (int i = 0; i < 100; ++i) episode(repo, "e" + std::to_string(i), std::string(500, 'x'));
  ScriptedProvider provider;
  provider.reply(R"({"memories":[]})");
  gantry::memory::ConsolidatorOptions options;
  options.max_input_chars = 8000;
  Consolidator consolidator(temp.store(), provider, kPersona, options);
  CancelToken cancel;
  auto report = consolidator.runOnce(cancel);
  REQUIRE(report.isOk());
  CHECK(report->episodes > 0);
  CHECK(report->episodes < 40);  // the character budget ran out before the batch size
  std::size_t sent =
      provider.requests[0][0].content.size() + provider.requests[0][1].content.size();
  CHECK(sent <= 8000 + 200);
  CHECK(repo.unconsolidatedEpisodes(200, nowMs()).value().size() ==
        static_cast<std::size_t>(100 - report->episodes));
}

TEST_CASE("the proposal parser skips invalid entries and keeps valid ones", "[memory]") {
  auto proposal = parseProposal(
      R"(Here you go: {"memories":[{"kind":"episode","subject":"a","content":"b"},)"
      R"({"kind":"fact","subject":"","content":"b"},{"kind":"fact","subject":"s","content":"c",)"
      R"("confidence":7,"supersedes":[1,"x",2]}, 5]} done)");
  REQUIRE(proposal.isOk());
  REQUIRE(proposal->memories.size() == 1);
  CHECK(proposal->memories[0].confidence == 1.0);
  CHECK(proposal->memories[0].supersedes == std::vector<int64_t>{1, 2});
  CHECK_FALSE(parseProposal("{}").value().memories.size());
}

TEST_CASE("the consolidation thread starts and stops promptly", "[memory]") {
  TempStore temp;
  ScriptedProvider provider;
  gantry::memory::ConsolidatorOptions options;
  options.period = std::chrono::minutes(30);
  Consolidator consolidator(temp.store(), provider, kPersona, options);
  consolidator.start();
  consolidator.stop();
  consolidator.stop();
  CHECK(provider.requests.empty());
  gantry::memory::ConsolidatorOptions off;
  off.period = std::chrono::minutes(0);
  Consolidator disabled(temp.store(), provider, kPersona, off);
  disabled.start();  // a no-op
}
