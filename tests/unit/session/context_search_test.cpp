// The search index leaves out the context withContext puts before a user's words: the
// migration that measures it in SQL must agree with the writer here.
#include <sqlite3.h>
#include <unistd.h>

#include <catch2/catch.hpp>
#include <filesystem>

#include "session/context_tail.h"
#include "store/maintenance.h"
#include "store/message_index.h"
#include "store/message_repo.h"
#include "store/message_search.h"
#include "store/migrations.h"
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
  REQUIRE(store::MessageIndex(store).catchUp().isOk());
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

TEST_CASE("a database from before the context left the index is migrated and reindexed",
          "[session]") {
  namespace fs = std::filesystem;
  const fs::path dir = fs::temp_directory_path() / ("gantry_v8_" + std::to_string(::getpid()));
  fs::remove_all(dir);
  fs::create_directories(dir);
  const std::string path = (dir / "gantry.db").string();
  {  // the schema at version 8, with a message indexed whole as it was then
    sqlite3* db = nullptr;
    REQUIRE(sqlite3_open(path.c_str(), &db) == SQLITE_OK);
    std::string sql;
    for (std::size_t v = 0; v < 8; ++v) sql.append(store::migrations()[v]);
    sql.append(
        "INSERT INTO sessions(chat_id, created_at, updated_at) VALUES ('c', 0, 0);"
        "INSERT INTO messages(session_id, role, content, created_at) VALUES (1, 'user', '");
    sql.append(session::withContext("[memory]\n- (fact) dentist: tuesday", "2026-12-02 09:00",
                                    "book a table"));
    sql.append("', 0); PRAGMA user_version = 8;");
    char* error = nullptr;
    const int rc = sqlite3_exec(db, sql.c_str(), nullptr, nullptr, &error);
    INFO((error ? error : ""));
    sqlite3_free(error);
    sqlite3_close(db);
    REQUIRE(rc == SQLITE_OK);
  }
  auto opened = store::Store::open(path);
  REQUIRE(opened.isOk());
  store::Store& store = *opened.value();
  CHECK(store.schemaVersion() == static_cast<int>(store::migrations().size()));
  CHECK(store::searchMessages(store, "tuesday", 10)->empty());
  auto hits = store::searchMessages(store, "table", 10);
  REQUIRE(hits->size() == 1);
  CHECK(hits->at(0).snippet == "book a [table]");
  CHECK(store::checkFts(store).isOk());
  opened.value().reset();
  fs::remove_all(dir);
}

TEST_CASE("the index starts at the user's words whatever the context's characters", "[session]") {
  testing::TempStore temp;
  store::Store& store = temp.store();
  store::MessageRepo repo(store);
  auto session = repo.session("c").value();
  const std::string memory = "[memory]\n- (person) Zoë: café au lait, straße, 東京 ✓";
  const std::string now = "2026-12-03 Thu 09:00 Europe/Zürich";
  auto id = repo.append(session,
                        message(Role::kUser, session::withContext(memory, now, "größer lantern")))
                .value();
  repo.append(session, message(Role::kUser, session::withContext("", "", "[now] not a block")));
  REQUIRE(store::MessageIndex(store).catchUp().isOk());
  auto lantern = store::searchMessages(store, "lantern", 10);
  REQUIRE(lantern->size() == 1);
  CHECK(lantern->at(0).snippet == "größer [lantern]");
  CHECK(store::searchMessages(store, "block", 10)->at(0).snippet == "[now] not a [block]");
  // A content settled after indexing is measured again.
  REQUIRE(repo.setContent(id, session::withContext("[memory]\n- (fact) ü: ß", now, "kite")).isOk());
  CHECK(store::searchMessages(store, "kite", 10)->at(0).snippet == "[kite]");
  CHECK(store::searchMessages(store, "lantern", 10)->empty());
  CHECK(store::checkFts(store).isOk());
}
