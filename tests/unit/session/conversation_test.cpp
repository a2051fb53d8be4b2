#include "session/conversation.h"

#include <catch2/catch.hpp>

#include "session/context_tail.h"
#include "unit/memory/temp_store.h"
#include "unit/session/scripted_provider.h"

using gantry::CancelToken;
using gantry::ChatMessage;
using gantry::Role;
using gantry::Status;
using gantry::session::Conversation;
using gantry::session::ConversationOptions;
using gantry::testing::ScriptedProvider;
using gantry::testing::TempStore;

namespace {

/// A result longer than the line it collapses to.
const std::string kLongResult(40, 'r');

struct Fixture {
  TempStore temp;
  ScriptedProvider provider;
  gantry::store::MessageRepo messages{temp.store()};
  int64_t session = 0;

  explicit Fixture(int turns = 6) {
    session = messages.session("chat").value();
    for (int i = 0; i < turns; ++i) {
      append(Role::kUser, "question " + std::to_string(i));
      append(Role::kAssistant, "answer " + std::to_string(i));
    }
  }
  void append(Role role, std::string text) {
    ChatMessage m;
    m.role = role;
    m.content = std::move(text);
    REQUIRE(messages.append(session, m).isOk());
  }
  static ConversationOptions options() {
    ConversationOptions options;
    options.bounds.max_messages = 6;
    options.bounds.protected_turns = 2;
    return options;
  }
  /// A conversation of "chat" with the user's next message recorded and the history bounded.
  std::unique_ptr<Conversation> turn(const std::string& text,
                                     ConversationOptions opts = options()) {
    auto c = std::make_unique<Conversation>(temp.store(), provider, std::move(opts));
    REQUIRE(c->open("chat").isOk());
    REQUIRE(c->recordUser(text, {}, {}).isOk());
    CancelToken cancel;
    REQUIRE(c->bound(cancel).isOk());
    return c;
  }
};

ChatMessage toolCallMessage(const std::string& id) {
  ChatMessage m;
  m.role = Role::kAssistant;
  m.tool_calls.push_back({id, "lookup", "{}", {}});
  return m;
}

}  // namespace

TEST_CASE("turns past the bounds leave the history once they are summarised", "[session]") {
  Fixture f;
  f.provider.reply("The user asked six questions.");
  auto c = f.turn("question 6");
  CHECK(c->history().size() <= 6);
  CHECK(c->history().back().content == "question 6");
  CHECK(c->summary() == "The user asked six questions.");
  CHECK(f.messages.historyCount(f.session).value() == static_cast<int64_t>(c->history().size()));
}

TEST_CASE("a turn opens with the summary of earlier folds and folds the next onto it",
          "[session]") {
  Fixture f;
  f.provider.reply("The user asked six questions.");
  f.turn("question 6");
  f.append(Role::kAssistant, "answer 6");

  Conversation c(f.temp.store(), f.provider, Fixture::options());
  REQUIRE(c.open("chat").isOk());
  CHECK(c.summary() == "The user asked six questions.");  // before any bounding
  for (int i = 7; i < 10; ++i) {
    REQUIRE(c.recordUser("question " + std::to_string(i), {}, {}).isOk());
    REQUIRE(c.recordReply({Role::kAssistant, "answer", {}, {}, {}, {}, {}}).isOk());
  }
  REQUIRE(c.recordUser("question 10", {}, {}).isOk());
  f.provider.reply("Ten questions.");
  CancelToken cancel;
  REQUIRE(c.bound(cancel).isOk());
  CHECK(c.summary() == "Ten questions.");
  // The fold was asked to extend the summary the turn opened with.
  bool extended = false;
  for (const auto& message : f.provider.requests.back()) {
    extended =
        extended || message.content.find("The user asked six questions.") != std::string::npos;
  }
  CHECK(extended);
}

TEST_CASE("a failed fold keeps the oldest turns in the history for the next fold, not the prompt",
          "[session]") {
  Fixture f;
  f.provider.fail(Status::error("model: HTTP 500"));
  auto c = f.turn("question 6");
  CHECK(c->history().size() <= 6);  // the bounds hold
  CHECK(c->history().back().content == "question 6");
  CHECK(c->summary().empty());
  CHECK(f.messages.historyCount(f.session).value() == 13);
  // The next turn folds them once the model answers.
  f.provider.reply("Seven questions.");
  c = f.turn("question 7");
  CHECK(c->history().size() <= 6);
  CHECK(c->summary() == "Seven questions.");
}

TEST_CASE("a cancelled fold keeps the oldest turns in the history, not the prompt", "[session]") {
  Fixture f;
  f.provider.reply("never used");
  Conversation c(f.temp.store(), f.provider, Fixture::options());
  REQUIRE(c.open("chat").isOk());
  REQUIRE(c.recordUser("question 6", {}, {}).isOk());
  CancelToken cancel;
  cancel.cancel();
  REQUIRE(c.bound(cancel).isOk());
  CHECK(c.history().size() <= 6);
  CHECK(c.summary().empty());
  CHECK(f.messages.historyCount(f.session).value() == 13);
}

TEST_CASE("the user message is recorded with its memory and time tail as sent", "[session]") {
  Fixture f(0);
  auto options = Fixture::options();
  options.hydrate = [](const std::string& text) { return "[memory]\n- likes " + text + "\n"; };
  options.now = [] { return "Monday 09:00 UTC"; };
  auto c = f.turn("tea", options);
  const std::string sent = c->history().back().content;
  CHECK(sent == "[memory]\n- likes tea\n\n[now] Monday 09:00 UTC\n\ntea");
  CHECK(f.messages.history(f.session).value().back().content == sent);
}

TEST_CASE("a memory block still in the history is not sent again", "[session]") {
  Fixture f(0);
  auto options = Fixture::options();
  options.hydrate = [](const std::string&) { return "[memory]\n- likes tea\n"; };
  options.now = [] { return "now"; };
  f.turn("first", options);
  f.append(Role::kAssistant, "ok");
  auto c = f.turn("second", options);
  CHECK(c->history().back().content == "[now] now\n\nsecond");
  CHECK(f.messages.history(f.session).value().back().content == "[now] now\n\nsecond");
  CHECK(c->history().front().content.rfind("[memory]", 0) == 0);
}

TEST_CASE("memory rows still in the history are not sent again but new ones are", "[session]") {
  Fixture f(0);
  auto options = Fixture::options();
  options.hydrate = [](const std::string& text) {
    return "[memory]\n- (fact) tea: green\n- (fact) topic: " + text + "\n";
  };
  options.now = [] { return "now"; };
  f.turn("first", options);
  f.append(Role::kAssistant, "ok");
  auto c = f.turn("second", options);
  const std::string sent = "[memory]\n- (fact) topic: second\n\n[now] now\n\nsecond";
  CHECK(c->history().back().content == sent);
  CHECK(f.messages.history(f.session).value().back().content == sent);
  CHECK(c->history().front().content ==
        "[memory]\n- (fact) tea: green\n- (fact) topic: first\n\n[now] now\n\nfirst");
}

TEST_CASE("a memory row is sent again once the message that showed it is out of the history",
          "[session]") {
  Fixture f(0);
  auto options = Fixture::options();
  options.hydrate = [](const std::string& text) {
    return "[memory]\n- (fact) tea: green\n- (fact) topic: " + text + "\n";
  };
  for (const char* text : {"one", "two", "three"}) {
    f.turn(text, options);
    f.append(Role::kAssistant, "ok");
  }
  f.provider.reply("The user said one.");
  auto c = f.turn("four", options);  // the bound of six messages folds the first turn away
  REQUIRE(c->summary() == "The user said one.");
  const std::string sent = "[memory]\n- (fact) tea: green\n- (fact) topic: four\n\nfour";
  CHECK(c->history().back().content == sent);
  CHECK(f.messages.history(f.session).value().back().content == sent);
}

TEST_CASE("each request's history is a byte-exact prefix of the next turn's", "[session]") {
  Fixture f(0);
  auto options = Fixture::options();
  options.bounds.max_messages = 100;
  options.now = [] { return "now"; };
  auto first = f.turn("one", options);
  ChatMessage reply;
  reply.role = Role::kAssistant;
  reply.content = "two";
  REQUIRE(first->recordReply(reply).isOk());
  auto before = first->history();
  auto second = f.turn("three", options);
  REQUIRE(second->history().size() == before.size() + 1);
  for (std::size_t i = 0; i < before.size(); ++i) {
    CHECK(second->history()[i].content == before[i].content);
  }
}

TEST_CASE("tool calls are recorded as running rows and their results appended", "[session]") {
  Fixture f(0);
  auto c = f.turn("look it up");
  auto rows = c->recordCalls(toolCallMessage("call_1"));
  REQUIRE(rows.isOk());
  REQUIRE(rows->size() == 1);
  CHECK(f.messages.history(f.session).value().back().tool_calls.size() == 1);
  REQUIRE(c->recordResult(rows->front(), {"call_1", "lookup", "{}", {}}, true, "found",
                          {"lookup", 5, 5})
              .isOk());
  auto record = f.messages.history(f.session).value();
  CHECK(record.back().role == Role::kTool);
  CHECK(record.back().tool_call_id == "call_1");
  CHECK(c->history().back().content == "found");
}

TEST_CASE("tool results older than the last four collapse within a turn", "[session]") {
  Fixture f(0);
  auto c = f.turn("many lookups");
  for (int i = 0; i < 5; ++i) {
    std::string id = "call_" + std::to_string(i);
    auto rows = c->recordCalls(toolCallMessage(id));
    REQUIRE(rows.isOk());
    REQUIRE(c->recordResult(rows->front(), {id, "lookup", "{}", {}}, true, kLongResult,
                            {"lookup", 1, 40})
                .isOk());
    c->collapseToolResults();
  }
  CHECK(c->history()[2].content == "[tool lookup: 40 chars, collapsed]");
  CHECK(c->history().back().content == kLongResult);
  // The record keeps every result whole.
  CHECK(f.messages.history(f.session).value()[2].content == kLongResult);
}

namespace {

/// The chat's history as the next turn opens it and as another connection reads the record.
void checkOpenedAsRecorded(Fixture& f) {
  gantry::store::MessageRepo repo(f.temp.store());
  auto opened = repo.open("chat");
  REQUIRE(opened.isOk());
  auto other = gantry::store::Store::open(f.temp.store().path(), gantry::store::Access::kNoSchema);
  REQUIRE(other.isOk());
  auto record = gantry::store::MessageRepo(*other.value()).history(f.session);
  REQUIRE(record.isOk());
  REQUIRE(opened->history.size() == record->size());
  for (std::size_t i = 0; i < record->size(); ++i) {
    CHECK(opened->history[i].content == record->at(i).content);
    CHECK(opened->history[i].tool_call_id == record->at(i).tool_call_id);
  }
  repo.giveBack(opened->id, opened->loan, std::move(opened->history));
}

}  // namespace

TEST_CASE("a turn gives its history back as recorded: results whole, unfolded turns kept",
          "[session]") {
  Fixture f(0);
  auto options = Fixture::options();
  options.bounds.max_messages = 100;
  {
    auto c = f.turn("many lookups", options);
    for (int i = 0; i < 6; ++i) {
      std::string id = "call_" + std::to_string(i);
      auto rows = c->recordCalls(toolCallMessage(id));
      REQUIRE(rows.isOk());
      REQUIRE(c->recordResult(rows->front(), {id, "lookup", "{}", {}}, true,
                              "result " + id + kLongResult, {"lookup", 1, 53})
                  .isOk());
      c->collapseToolResults();
    }
    REQUIRE(c->recordReply({Role::kAssistant, "done", {}, {}, {}, {}, {}}).isOk());
  }
  checkOpenedAsRecorded(f);
  {
    // The results are lent now; the next turn collapses them in its prompt only.
    auto c = f.turn("again", options);
    CHECK(c->history()[2].content == "[tool lookup: 53 chars, collapsed]");
    REQUIRE(c->recordReply({Role::kAssistant, "ok", {}, {}, {}, {}, {}}).isOk());
  }
  checkOpenedAsRecorded(f);
  {
    f.provider.fail(Status::error("model: HTTP 500"));
    auto c = f.turn("bounded");  // six messages at most: a fold, which fails
    CHECK(c->history().size() <= 6);
  }
  checkOpenedAsRecorded(f);
  {
    f.provider.reply("Lookups.");
    auto c = f.turn("folded");
    CHECK(c->summary() == "Lookups.");
  }
  checkOpenedAsRecorded(f);
}
