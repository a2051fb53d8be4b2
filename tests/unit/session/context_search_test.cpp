// The search index leaves out the context withContext puts before a user's words: the
// migration that measures it in SQL must agree with the writer here.
#include <catch2/catch.hpp>

#include "session/context_tail.h"
#include "store/maintenance.h"
#include "store/message_repo.h"
#include "store/message_search.h"
#include "unit/memory/temp_store.h"
#include "unit/support/chat_message.h"

using namespace gantry;
using gantry::testing::message;

TEST_CASE("search finds what the user wrote, not the memory and time a message was sent with",
          "[session]") {
  testing::TempStore temp;
  store::Store& store = temp.store();
  store::MessageRepo repo(store);
  auto session = repo.session("c").value();
  const std::string memory = "[memory]\n- (fact) dentist: tuesday at nine";
  const std::string now = "2026-12-02 Wed 09:00 Europe/Berlin";
  auto id = repo.append(session, message(Role::kUser,
                                         session::withContext(memory, now, "book the umbrella")))
                .value();
  repo.append(session, message(Role::kUser, session::withContext(memory, "", "a kite please")));
  repo.append(session, message(Role::kUser, session::withContext("", now, "[memory] is a word")));
  repo.append(session, message(Role::kAssistant, "[memory]\nthe dentist said so\n\nok"));
  for (const char* unsaid : {"tuesday", "nine", "Berlin", "2026"}) {
    INFO(unsaid);
    CHECK(store::searchMessages(store, unsaid, 10)->empty());
  }
  CHECK(store::searchMessages(store, "umbrella", 10)->size() == 1);
  CHECK(store::searchMessages(store, "kite", 10)->size() == 1);
  CHECK(store::searchMessages(store, "word", 10)->size() == 1);
  auto dentist = store::searchMessages(store, "dentist", 10);  // the model's own words count
  REQUIRE(dentist->size() == 1);
  CHECK(dentist->at(0).role == "assistant");
  // A repeated block is dropped from the record; the index follows the new text.
  REQUIRE(repo.setContent(id, session::withContext("", now, "book the umbrella today")).isOk());
  CHECK(store::searchMessages(store, "today", 10)->size() == 1);
  CHECK(store::searchMessages(store, "Berlin", 10)->empty());
  CHECK(store::checkFts(store).isOk());
}
