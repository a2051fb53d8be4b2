// The search index leaves out the context withContext puts before a user's words: the
// migration that measures it in SQL must agree with the writer here.
#include <catch2/catch.hpp>
#include <filesystem>

#include "session/context_tail.h"
#include "store/maintenance.h"
#include "store/message_repo.h"
#include "store/message_search.h"

namespace fs = std::filesystem;
using namespace gantry;

namespace {

std::unique_ptr<store::Store> freshStore() {
  fs::path dir =
      fs::temp_directory_path() / ("gantry_context_search_" + std::to_string(::getpid()));
  fs::create_directories(dir);
  fs::remove(dir / "context.db");
  auto s = store::Store::open((dir / "context.db").string());
  REQUIRE(s.isOk());
  return std::move(s.value());
}

ChatMessage message(Role role, std::string content) {
  ChatMessage m;
  m.role = role;
  m.content = std::move(content);
  return m;
}

}  // namespace

TEST_CASE("search finds what the user wrote, not the memory and time a message was sent with",
          "[session]") {
  auto s = freshStore();
  store::MessageRepo repo(*s);
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
    CHECK(store::searchMessages(*s, unsaid, 10)->empty());
  }
  CHECK(store::searchMessages(*s, "umbrella", 10)->size() == 1);
  CHECK(store::searchMessages(*s, "kite", 10)->size() == 1);
  CHECK(store::searchMessages(*s, "word", 10)->size() == 1);
  auto dentist = store::searchMessages(*s, "dentist", 10);  // the model's own words count
  REQUIRE(dentist->size() == 1);
  CHECK(dentist->at(0).role == "assistant");
  // A repeated block is dropped from the record; the index follows the new text.
  REQUIRE(repo.setContent(id, session::withContext("", now, "book the umbrella today")).isOk());
  CHECK(store::searchMessages(*s, "today", 10)->size() == 1);
  CHECK(store::searchMessages(*s, "Berlin", 10)->empty());
  CHECK(store::checkFts(*s).isOk());
}
