// The messages' search index is written in steps after the messages (store/message_index.h);
// in between, the index check must still pass and every change to a message must end up in
// the index exactly once.
#include "store/message_index.h"

#include <catch2/catch.hpp>

#include "store/maintenance.h"
#include "store/message_repo.h"
#include "store/message_search.h"
#include "unit/memory/temp_store.h"
#include "unit/support/chat_message.h"

using namespace gantry;
using gantry::testing::message;

namespace {

std::size_t hits(store::Store& s, const char* query) {
  auto found = store::searchMessages(s, query, 10000);
  REQUIRE(found.isOk());
  return found->size();
}

}  // namespace

TEST_CASE("messages are indexed a bounded number a step, each once", "[store]") {
  testing::TempStore temp;
  store::Store* s = &temp.store();
  store::MessageRepo repo(*s);
  const int64_t session = repo.session("c").value();
  const int64_t total = store::MessageIndex::kMessagesPerStep + 10;
  for (int64_t i = 0; i < total; ++i) {
    // Tool results take ids too but are never indexed.
    repo.append(session, message(Role::kTool, "pebble result", "c" + std::to_string(i)));
    repo.append(session, message(i % 2 ? Role::kAssistant : Role::kUser, "pebble said"));
  }
  store::MessageIndex index(*s);
  CHECK(hits(*s, "pebble") == 0);
  auto first = index.step();
  REQUIRE(first.isOk());
  CHECK(first.value());  // more are left
  CHECK(hits(*s, "pebble") == static_cast<std::size_t>(store::MessageIndex::kMessagesPerStep / 2));
  CHECK(store::checkFts(*s).isOk());
  REQUIRE(index.catchUp().isOk());
  CHECK(hits(*s, "pebble") == static_cast<std::size_t>(total));
  auto again = index.step();
  REQUIRE(again.isOk());
  CHECK_FALSE(again.value());
  CHECK(hits(*s, "pebble") == static_cast<std::size_t>(total));
  CHECK(store::checkFts(*s).isOk());
}

TEST_CASE("a message changed or deleted before it is indexed leaves the index matching",
          "[store]") {
  testing::TempStore temp;
  store::Store* s = &temp.store();
  store::MessageRepo repo(*s);
  const int64_t session = repo.session("c").value();
  const int64_t kept = repo.append(session, message(Role::kUser, "draft lantern")).value();
  const int64_t answer = repo.append(session, message(Role::kAssistant, "old compass")).value();
  REQUIRE(repo.setContent(kept, "settled lantern").isOk());  // not indexed yet
  REQUIRE(repo.commitFold({session, "", answer, 0}).isOk());
  repo.append(session, message(Role::kUser, "new compass"));
  // The dropped pair is deleted before it was ever indexed.
  REQUIRE(store::pruneRecord(*s, store::nowMs() + 1000).isOk());
  CHECK(store::checkFts(*s).isOk());
  REQUIRE(store::MessageIndex(*s).catchUp().isOk());
  CHECK(hits(*s, "lantern") == 0);
  CHECK(hits(*s, "compass") == 1);
  CHECK(store::checkFts(*s).isOk());
  // Once indexed, a change reaches the index through its trigger.
  const int64_t later = repo.append(session, message(Role::kUser, "first kettle")).value();
  REQUIRE(store::MessageIndex(*s).catchUp().isOk());
  REQUIRE(repo.setContent(later, "second teapot").isOk());
  CHECK(hits(*s, "kettle") == 0);
  CHECK(hits(*s, "teapot") == 1);
  CHECK(store::checkFts(*s).isOk());
}

TEST_CASE("a rebuilt message index still takes the messages not indexed yet", "[store]") {
  testing::TempStore temp;
  store::Store* s = &temp.store();
  store::MessageRepo repo(*s);
  const int64_t session = repo.session("c").value();
  repo.append(session, message(Role::kUser, "early harbour"));
  REQUIRE(store::MessageIndex(*s).catchUp().isOk());
  repo.append(session, message(Role::kUser, "late harbour"));
  REQUIRE(store::rebuildFts(*s).isOk());
  CHECK(hits(*s, "harbour") == 1);
  CHECK(store::checkFts(*s).isOk());
  REQUIRE(store::MessageIndex(*s).catchUp().isOk());
  CHECK(hits(*s, "harbour") == 2);
  CHECK(store::checkFts(*s).isOk());
}
