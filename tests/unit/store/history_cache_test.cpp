// A chat's history read again comes from the cache of the store's connection plus the
// messages added since; these tests change the history every way the record allows, through
// the same connection and through another one (as another process would), and compare each
// read with what the record holds.
#include "store/history_cache.h"

#include <catch2/catch.hpp>

#include "store/message_repo.h"
#include "store/turn_repo.h"
#include "unit/memory/temp_store.h"

using namespace gantry;

namespace {

ChatMessage message(Role role, std::string content) {
  return {role, std::move(content), {}, {}, {}, {}, {}};
}

std::vector<std::string> contents(const std::vector<ChatMessage>& history) {
  std::vector<std::string> out;
  out.reserve(history.size());
  for (const auto& m : history) out.push_back(m.content);
  return out;
}

using Texts = std::vector<std::string>;

/// The chat's history as its next turn opens it, given back as a turn gives it back.
Texts opened(store::MessageRepo& repo, const std::string& chat) {
  auto session = repo.open(chat);
  REQUIRE(session.isOk());
  Texts texts = contents(session->history);
  repo.giveBack(session->id, session->loan, std::move(session->history));
  return texts;
}

}  // namespace

TEST_CASE("a history opened again holds the messages appended since, in order", "[store]") {
  testing::TempStore temp;
  store::Store* s = &temp.store();
  store::MessageRepo repo(*s);
  const int64_t session = repo.open("chat").value().id;
  REQUIRE(repo.append(session, message(Role::kUser, "one")).isOk());
  CHECK(opened(repo, "chat") == Texts{"one"});
  REQUIRE(repo.append(session, message(Role::kAssistant, "two")).isOk());
  ChatMessage calls{Role::kAssistant, "", {}, {{"c1", "memory_recall", "{}", "sig"}}, {}, {}, "r"};
  auto rows = repo.appendCalls(session, calls);
  REQUIRE(rows.isOk());
  REQUIRE(repo.appendResult(session, rows->at(0), true, {},
                            {Role::kTool, "found", {}, {}, "c1", "memory_recall", {}})
              .isOk());
  auto history = repo.open("chat").value().history;
  CHECK(contents(history) == Texts{"one", "two", "", "found"});
  CHECK(history[2].tool_calls.at(0).thought_signature == "sig");
  CHECK(history[2].reasoning == "r");
  CHECK(history[3].tool_call_id == "c1");
  CHECK(contents(repo.history(session).value()) == contents(history));
}

TEST_CASE("messages that leave the history are gone from it when it is opened again", "[store]") {
  testing::TempStore temp;
  store::Store* s = &temp.store();
  store::MessageRepo repo(*s);
  const int64_t session = repo.open("chat").value().id;
  std::vector<int64_t> ids;
  for (const char* m : {"a", "b", "c", "d"})
    ids.push_back(repo.append(session, message(Role::kUser, m)).value());
  CHECK(opened(repo, "chat") == Texts{"a", "b", "c", "d"});

  REQUIRE(repo.dropFromHistory(session, 1).isOk());  // a fold
  CHECK(opened(repo, "chat") == Texts{"b", "c", "d"});
  REQUIRE(repo.hideMessage(ids[2]).isOk());  // a cancelled bubble
  REQUIRE(repo.append(session, message(Role::kUser, "e")).isOk());
  CHECK(opened(repo, "chat") == Texts{"b", "d", "e"});
  REQUIRE(repo.clearHistory(session).isOk());  // /new
  CHECK(opened(repo, "chat").empty());
  REQUIRE(repo.append(session, message(Role::kUser, "f")).isOk());
  CHECK(opened(repo, "chat") == Texts{"f"});
}

TEST_CASE("a fold through the cached connection leaves the history as the record has it",
          "[store]") {
  testing::TempStore temp;
  const std::string path = temp.store().path();
  store::MessageRepo repo(temp.store());
  const int64_t session = repo.open("chat").value().id;
  for (const char* m : {"a", "b", "c", "d"})
    REQUIRE(repo.append(session, message(Role::kUser, m)).isOk());
  CHECK(opened(repo, "chat") == Texts{"a", "b", "c", "d"});
  REQUIRE(repo.dropFromHistory(session, 2).isOk());
  CHECK(opened(repo, "chat") == Texts{"c", "d"});

  // More than the cache holds: the messages appended since it was read leave too.
  REQUIRE(repo.append(session, message(Role::kUser, "e")).isOk());
  const int64_t f = repo.append(session, message(Role::kUser, "f")).value();
  REQUIRE(repo.dropFromHistory(session, 3).isOk());
  CHECK(opened(repo, "chat") == Texts{"f"});

  // A message that left through another connection before the fold.
  auto other = store::Store::open(path, store::Access::kNoSchema);
  REQUIRE(other.isOk());
  REQUIRE(store::MessageRepo(*other.value()).hideMessage(f).isOk());
  for (const char* m : {"g", "h"}) REQUIRE(repo.append(session, message(Role::kUser, m)).isOk());
  REQUIRE(repo.dropFromHistory(session, 1).isOk());
  CHECK(opened(repo, "chat") == Texts{"h"});

  // The turn's own message settled after the history was read.
  const int64_t own =
      repo.append(session, message(Role::kUser, "[memory]\n- (fact) x: y\n\ni")).value();
  REQUIRE(repo.setContent(own, "i").isOk());
  CHECK(opened(repo, "chat") == Texts{"h", "i"});
  REQUIRE(repo.dropFromHistory(session, 0).isOk());  // nothing leaves
  CHECK(opened(repo, "chat") == Texts{"h", "i"});
}

TEST_CASE("a message's settled content is read, not the cached one", "[store]") {
  testing::TempStore temp;
  store::Store* s = &temp.store();
  store::MessageRepo repo(*s);
  const int64_t session = repo.open("chat").value().id;
  const int64_t id =
      repo.append(session, message(Role::kUser, "[memory]\n- (fact) x: y\n\nhi")).value();
  REQUIRE(opened(repo, "chat").size() == 1);
  REQUIRE(repo.setContent(id, "hi").isOk());
  CHECK(opened(repo, "chat") == Texts{"hi"});
}

TEST_CASE("changes another connection makes to a history are seen", "[store]") {
  testing::TempStore temp;
  const std::string path = temp.store().path();
  store::MessageRepo repo(temp.store());
  const int64_t session = repo.open("chat").value().id;
  std::vector<int64_t> ids;
  for (const char* m : {"a", "b", "c"})
    ids.push_back(repo.append(session, message(Role::kUser, m)).value());
  CHECK(opened(repo, "chat") == Texts{"a", "b", "c"});

  auto other = store::Store::open(path, store::Access::kNoSchema);
  REQUIRE(other.isOk());
  store::MessageRepo elsewhere(*other.value());
  REQUIRE(elsewhere.hideMessage(ids[1]).isOk());
  REQUIRE(elsewhere.append(session, message(Role::kAssistant, "d")).isOk());
  CHECK(opened(repo, "chat") == Texts{"a", "c", "d"});
  // Hidden and appended as many: the count of the cached part alone tells it changed.
  REQUIRE(elsewhere.hideMessage(ids[0]).isOk());
  REQUIRE(elsewhere.append(session, message(Role::kAssistant, "e")).isOk());
  CHECK(opened(repo, "chat") == Texts{"c", "d", "e"});
}

TEST_CASE("histories of more chats than are cached each read whole", "[store]") {
  testing::TempStore temp;
  store::Store* s = &temp.store();
  store::MessageRepo repo(*s);
  const std::size_t chats = store::HistoryCache::kSessions + 2;
  for (int round = 0; round < 3; ++round) {
    for (std::size_t chat = 0; chat < chats; ++chat) {
      const std::string name = "chat-" + std::to_string(chat);
      const int64_t session = repo.open(name).value().id;
      REQUIRE(
          repo.append(session, message(Role::kUser, name + "/" + std::to_string(round))).isOk());
      Texts expected;
      for (int r = 0; r <= round; ++r) expected.push_back(name + "/" + std::to_string(r));
      CHECK(opened(repo, name) == expected);
    }
  }
}

TEST_CASE("the history of a turn kept open is read with its user message", "[store]") {
  testing::TempStore temp;
  store::Store* s = &temp.store();
  store::MessageRepo repo(*s);
  store::TurnRepo turns(*s);
  const int64_t session = repo.open("chat").value().id;
  REQUIRE(opened(repo, "chat").empty());
  REQUIRE(turns.open(session, message(Role::kUser, "question"), {}).isOk());
  CHECK(opened(repo, "chat") == Texts{"question"});
  REQUIRE(turns.closeWithReply(session, "chat", message(Role::kAssistant, "answer")).isOk());
  CHECK(opened(repo, "chat") == Texts{"question", "answer"});
}

TEST_CASE("an opened history's shown memory rows follow the messages in it", "[store]") {
  testing::TempStore temp;
  store::Store* s = &temp.store();
  store::MessageRepo repo(*s);
  const int64_t session = repo.open("chat").value().id;
  const int64_t first =
      repo.append(session, message(Role::kUser, "[memory]\n- (fact) a: b\n\none")).value();
  REQUIRE(repo.append(session, message(Role::kAssistant, "[memory]\n- (fact) x: y\n\nok")).isOk());
  CHECK(repo.open("chat").value().shown.contains("- (fact) a: b"));
  CHECK_FALSE(repo.open("chat").value().shown.contains("- (fact) x: y"));  // not a user's

  REQUIRE(repo.append(session, message(Role::kUser, "[memory]\n- (fact) c: d\n\ntwo")).isOk());
  auto opened = repo.open("chat").value();
  CHECK(opened.shown.contains("- (fact) a: b"));
  CHECK(opened.shown.contains("- (fact) c: d"));

  REQUIRE(repo.setContent(first, "[memory]\n- (fact) e: f\n\none").isOk());
  opened = repo.open("chat").value();
  CHECK_FALSE(opened.shown.contains("- (fact) a: b"));
  CHECK(opened.shown.contains("- (fact) e: f"));

  REQUIRE(repo.dropFromHistory(session, 2).isOk());  // a fold: the first turn leaves
  opened = repo.open("chat").value();
  CHECK_FALSE(opened.shown.contains("- (fact) e: f"));
  CHECK(opened.shown.contains("- (fact) c: d"));
}

namespace {

/// The chat's history as open() lends it, marked so that a reader served from what was given
/// back (and not from the record) is told apart.
struct Loan {
  int64_t session = 0;
  uint64_t loan = 0;
  std::vector<ChatMessage> marked;
};

Loan borrow(store::MessageRepo& repo, const std::string& chat) {
  auto session = repo.open(chat);
  REQUIRE(session.isOk());
  Loan loan{session->id, session->loan, std::move(session->history)};
  for (auto& m : loan.marked) m.content = "given " + m.content;
  return loan;
}

void giveBack(store::MessageRepo& repo, Loan& loan, std::size_t drop_oldest = 0) {
  loan.marked.erase(loan.marked.begin(),
                    loan.marked.begin() + static_cast<std::ptrdiff_t>(drop_oldest));
  repo.giveBack(loan.session, loan.loan, std::move(loan.marked));
}

}  // namespace

TEST_CASE("a history given back is the one the next open starts from", "[store]") {
  testing::TempStore temp;
  store::MessageRepo repo(temp.store());
  const int64_t session = repo.open("chat").value().id;
  for (const char* m : {"a", "b", "c"})
    REQUIRE(repo.append(session, message(Role::kUser, m)).isOk());
  Loan loan = borrow(repo, "chat");
  CHECK(loan.loan != 0);
  REQUIRE(repo.append(session, message(Role::kAssistant, "d")).isOk());  // the turn's reply
  giveBack(repo, loan);
  CHECK(opened(repo, "chat") == Texts{"given a", "given b", "given c", "d"});

  // A fold of the borrowing turn: the oldest leave the record's history and what comes back.
  loan = borrow(repo, "chat");
  REQUIRE(repo.dropFromHistory(session, 2).isOk());
  giveBack(repo, loan, 2);
  CHECK(opened(repo, "chat") == Texts{"given given c", "given d"});
}

TEST_CASE("a history given back is not kept once anything else changed it meanwhile", "[store]") {
  testing::TempStore temp;
  const std::string path = temp.store().path();
  store::MessageRepo repo(temp.store());
  const int64_t session = repo.open("chat").value().id;
  std::vector<int64_t> ids;
  for (const char* m : {"a", "b", "c", "d", "e", "f"})
    ids.push_back(repo.append(session, message(Role::kUser, m)).value());

  SECTION("read again by another reader") {
    Loan loan = borrow(repo, "chat");
    REQUIRE(repo.history(session).isOk());
    giveBack(repo, loan);
    CHECK(opened(repo, "chat") == Texts{"a", "b", "c", "d", "e", "f"});
  }
  SECTION("lent twice: the first loan is void, the second stands") {
    Loan first = borrow(repo, "chat");
    Loan second = borrow(repo, "chat");
    giveBack(repo, first);
    CHECK(opened(repo, "chat") == Texts{"a", "b", "c", "d", "e", "f"});
    second = borrow(repo, "chat");
    giveBack(repo, second);
    CHECK(opened(repo, "chat").front() == "given a");
  }
  SECTION("a lent message hidden") {
    Loan loan = borrow(repo, "chat");
    REQUIRE(repo.hideMessage(ids[1]).isOk());
    giveBack(repo, loan);
    CHECK(opened(repo, "chat") == Texts{"a", "c", "d", "e", "f"});
  }
  SECTION("the history cleared") {
    Loan loan = borrow(repo, "chat");
    REQUIRE(repo.clearHistory(session).isOk());
    giveBack(repo, loan);
    CHECK(opened(repo, "chat").empty());
  }
  SECTION("a lent message rewritten") {
    Loan loan = borrow(repo, "chat");
    REQUIRE(repo.setContent(ids[0], "A").isOk());
    giveBack(repo, loan);
    CHECK(opened(repo, "chat").front() == "A");
  }
  SECTION("a fold given back whole, or not folded but given back short") {
    Loan loan = borrow(repo, "chat");
    REQUIRE(repo.dropFromHistory(session, 2).isOk());
    giveBack(repo, loan);
    CHECK(opened(repo, "chat") == Texts{"c", "d", "e", "f"});
    loan = borrow(repo, "chat");
    giveBack(repo, loan, 1);
    CHECK(opened(repo, "chat") == Texts{"c", "d", "e", "f"});
  }
  SECTION("another connection hid a lent message") {
    Loan loan = borrow(repo, "chat");
    auto other = store::Store::open(path, store::Access::kNoSchema);
    REQUIRE(other.isOk());
    REQUIRE(store::MessageRepo(*other.value()).hideMessage(ids[2]).isOk());
    giveBack(repo, loan);
    CHECK(opened(repo, "chat") == Texts{"a", "b", "d", "e", "f"});
  }
}
