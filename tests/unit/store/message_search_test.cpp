#include "store/message_search.h"

#include <catch2/catch.hpp>

#include "store/approval_repo.h"
#include "store/maintenance.h"
#include "store/message_index.h"
#include "store/message_repo.h"
#include "unit/store/fresh_store.h"
#include "unit/support/chat_message.h"

using namespace gantry;
using gantry::testing::freshStore;

using gantry::testing::message;

TEST_CASE("search finds what the user and the model said, never tool results", "[store]") {
  auto s = freshStore("search.db");
  store::MessageRepo repo(*s);
  auto session = repo.session("chat-1").value();
  auto asked = repo.append(session, message(Role::kUser, "where is the blue umbrella?")).value();
  repo.append(session, message(Role::kTool, "umbrella listed in the shed inventory", "c1"));
  repo.append(session, message(Role::kAssistant, "The umbrella is in the hall."));
  CHECK(store::searchMessages(*s, "umbrella", 10)->empty());  // not indexed yet
  REQUIRE(store::MessageIndex(*s).catchUp().isOk());
  auto hits = store::searchMessages(*s, "umbrella", 10);
  REQUIRE(hits.isOk());
  REQUIRE(hits->size() == 2);
  for (const auto& hit : hits.value()) CHECK(hit.role != "tool");
  CHECK(hits->at(0).snippet.find("[umbrella]") != std::string::npos);
  REQUIRE(repo.setContent(asked, "where is the red kite?").isOk());
  CHECK(store::searchMessages(*s, "blue", 10)->empty());
  CHECK(store::searchMessages(*s, "kite", 10)->size() == 1);
}

TEST_CASE("search text with FTS5 syntax is plain words, and an empty query finds nothing",
          "[store]") {
  auto s = freshStore("syntax.db");
  store::MessageRepo repo(*s);
  repo.append(repo.session("c").value(), message(Role::kUser, "NEAR the AND gate \"quoted\""));
  REQUIRE(store::MessageIndex(*s).catchUp().isOk());
  auto odd = store::searchMessages(*s, "NEAR( AND \"quoted* ^", 10);
  REQUIRE(odd.isOk());
  CHECK(odd->size() == 1);
  CHECK(store::searchMessages(*s, "  ", 10)->empty());
  CHECK(store::searchMessages(*s, "gate", 0)->empty());
}

TEST_CASE("doctor's index check covers the message index and a rebuild restores it", "[store]") {
  auto s = freshStore("doctor.db");
  store::MessageRepo repo(*s);
  repo.append(repo.session("c").value(), message(Role::kUser, "indexed words"));
  CHECK(store::checkFts(*s).isOk());  // a message not indexed yet is not a mismatch
  REQUIRE(store::MessageIndex(*s).catchUp().isOk());
  CHECK(store::checkFts(*s).isOk());
  REQUIRE(store::rebuildFts(*s).isOk());
  CHECK(store::searchMessages(*s, "indexed", 5)->size() == 1);
  CHECK(store::checkFts(*s).isOk());
}

TEST_CASE("a retention pass deletes old rows but never what is still in a chat's history",
          "[store]") {
  auto s = freshStore("prune.db");
  store::MessageRepo repo(*s);
  auto session = repo.session("c").value();
  repo.append(session, message(Role::kUser, "old words dropped"));
  const int64_t answer =
      repo.append(session, message(Role::kAssistant, "old answer dropped")).value();
  REQUIRE(store::MessageIndex(*s).catchUp().isOk());
  REQUIRE(repo.commitFold({session, "", answer, 0}).isOk());
  repo.append(session, message(Role::kUser, "recent words kept"));
  store::ApprovalRepo approvals(*s);
  store::ApprovalRow old_approval, live_approval;
  old_approval.id = "old00000";
  old_approval.expires_at = store::nowMs() - 1;
  live_approval.id = "live0000";
  live_approval.expires_at = store::nowMs() + 900000;
  REQUIRE(approvals.insert(old_approval).isOk());
  REQUIRE(approvals.insert(live_approval).isOk());
  store::TurnCost turn;
  turn.session_id = session;
  turn.started_at = store::nowMs() - 10;
  turn.outcome = "ok";
  turn.repairs = {{"name_repaired", "lookup"}, {"think_promoted", ""}};
  REQUIRE(repo.recordTurn(turn).isOk());
  const int64_t future = store::nowMs() + 1000;  // everything so far is older than this
  auto pruned = store::pruneRecord(*s, future);
  REQUIRE(pruned.isOk());
  REQUIRE(store::MessageIndex(*s).catchUp().isOk());
  CHECK(pruned->messages == 2);
  CHECK(pruned->turns == 1);
  CHECK(pruned->repairs == 2);
  CHECK(pruned->approvals == 1);
  CHECK(approvals.find("live0000")->has_value());
  CHECK(store::searchMessages(*s, "dropped", 10)->empty());
  CHECK(store::searchMessages(*s, "kept", 10)->size() == 1);
  REQUIRE(repo.history(session)->size() == 1);
  CHECK(store::checkFts(*s).isOk());
  CHECK(store::pruneRecord(*s, future)->messages == 0);
}
