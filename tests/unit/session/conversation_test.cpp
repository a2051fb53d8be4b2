#include "session/conversation.h"

#include <catch2/catch.hpp>
#include <future>

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
  gantry::session::Folds folds{temp.store(), provider, options().bounds, options().fold};
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
    auto c = std::make_unique<Conversation>(temp.store(), &folds, std::move(opts));
    REQUIRE(c->open("chat").isOk());
    REQUIRE(c->recordUser(text, {}, {}).isOk());
    REQUIRE(c->bound().isOk());
    return c;
  }
  /// Ends a turn as the agent does: a reply, then the fold when one is due, waited for.
  void reply(Conversation& c, const std::string& text) {
    REQUIRE(c.recordReply({Role::kAssistant, text, {}, {}, {}, {}, {}}).isOk());
    if (c.foldDue()) folds.request(c.sessionId());
    folds.waitIdle();
  }
};

ChatMessage toolCallMessage(const std::string& id) {
  ChatMessage m;
  m.role = Role::kAssistant;
  m.tool_calls.push_back({id, "lookup", "{}", {}});
  return m;
}

}  // namespace

TEST_CASE("a fold after the reply trims the history below the bounds and summarises it",
          "[session]") {
  Fixture f;
  f.provider.reply("The user asked six questions.");
  auto c = f.turn("question 6");
  CHECK(c->history().size() <= 6);  // no fold has run: the prompt alone is bounded
  CHECK(c->summary().empty());
  f.reply(*c, "answer 6");
  // Down to the low-water mark (half the cap), so the next fold is turns away.
  CHECK(f.messages.historyCount(f.session).value() == 4);  // the two protected turns
  c = f.turn("question 7");
  CHECK(c->summary() == "The user asked six questions.");
  CHECK(c->history().back().content == "question 7");
}

namespace {

/// A model that answers nothing until released, then fails.
class HeldProvider final : public gantry::Provider {
 public:
  gantry::Result<gantry::ChatResponse> chat(const gantry::ChatRequest&,
                                            const gantry::StreamCallbacks*,
                                            const CancelToken&) noexcept override {
    released_.wait();
    return Status::error("held");
  }
  std::string model() const noexcept override { return "held"; }
  void release() { release_.set_value(); }

 private:
  std::promise<void> release_;
  std::shared_future<void> released_ = release_.get_future().share();
};

}  // namespace

TEST_CASE("a turn that starts while a fold runs does not wait for it and keeps to the bounds",
          "[session]") {
  Fixture f;
  HeldProvider held;
  gantry::session::Folds folds(f.temp.store(), held, Fixture::options().bounds, {});
  folds.request(f.session);
  Conversation during(f.temp.store(), &folds, Fixture::options());
  REQUIRE(during.open("chat").isOk());
  REQUIRE(during.recordUser("question 6", {}, {}).isOk());
  REQUIRE(during.bound().isOk());       // returns while the fold is held
  CHECK(during.history().size() <= 6);  // the bounds are a hard cap on the prompt
  CHECK(during.history().back().content == "question 6");
  held.release();
  folds.waitIdle();
  CHECK(f.messages.historyCount(f.session).value() == 13);  // the failed fold changed nothing
}

TEST_CASE("a failed fold keeps the oldest turns in the history for the next fold, not the prompt",
          "[session]") {
  Fixture f;
  f.provider.fail(Status::error("model: HTTP 500"));
  auto c = f.turn("question 6");
  f.reply(*c, "answer 6");
  CHECK(f.messages.historyCount(f.session).value() == 14);
  CHECK(c->summary().empty());
  // The next turn's prompt is bounded all the same, and its reply folds them.
  f.provider.reply("Seven questions.");
  c = f.turn("question 7");
  CHECK(c->history().size() <= 6);
  CHECK(c->history().back().content == "question 7");
  f.reply(*c, "answer 7");
  CHECK(f.messages.historyCount(f.session).value() == 4);  // the two protected turns
  CHECK(f.turn("question 8")->summary() == "Seven questions.");
}

TEST_CASE("a fold extends the summary the session had", "[session]") {
  Fixture f;
  f.provider.reply("The user asked six questions.");
  f.reply(*f.turn("question 6"), "answer 6");
  for (int i = 7; i < 10; ++i) f.reply(*f.turn("question " + std::to_string(i)), "answer");
  f.provider.reply("Ten questions.");
  f.reply(*f.turn("question 10"), "answer");
  CHECK(f.turn("question 11")->summary() == "Ten questions.");
  bool extended = false;
  for (const auto& message : f.provider.requests.back()) {
    extended =
        extended || message.content.find("The user asked six questions.") != std::string::npos;
  }
  CHECK(extended);
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
  f.provider.reply("The user said one.");
  for (const char* text : {"one", "two", "three"}) f.reply(*f.turn(text, options), "ok");
  auto c = f.turn("four", options);  // the bound of six messages folded the first turn away
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

namespace {

void lookups(Conversation& c, int count, const std::string& result = "result") {
  for (int i = 0; i < count; ++i) {
    std::string id = "call_" + std::to_string(i);
    auto rows = c.recordCalls(toolCallMessage(id));
    REQUIRE(rows.isOk());
    const auto chars = static_cast<int64_t>(result.size());
    REQUIRE(
        c.recordResult(rows->front(), {id, "lookup", "{}", {}}, true, result, {"lookup", 1, chars})
            .isOk());
    c.collapseIfPastBounds();
  }
}

}  // namespace

TEST_CASE("tool results stay whole within a turn while its context is within the bounds",
          "[session]") {
  Fixture f(0);
  auto options = Fixture::options();
  options.bounds.max_messages = 100;
  auto c = f.turn("many lookups", options);
  lookups(*c, 6);
  for (const auto& message : c->history()) {
    if (message.role == Role::kTool) CHECK(message.content == "result");
  }
}

TEST_CASE("a turn past the bounds collapses all but the last four results, and later turns too",
          "[session]") {
  Fixture f(0);
  auto options = Fixture::options();
  options.bounds.max_messages = 100;
  options.bounds.max_tokens = 60;
  {
    auto c = f.turn("many lookups", options);
    lookups(*c, 6, std::string(40, 'x'));
    CHECK(c->history()[2].content == "[tool lookup: 40 chars, collapsed]");
    CHECK(c->history()[4].content == "[tool lookup: 40 chars, collapsed]");
    CHECK(c->history()[6].content == std::string(40, 'x'));
    REQUIRE(c->recordReply({Role::kAssistant, "done", {}, {}, {}, {}, {}}).isOk());
  }
  // The record keeps every result whole; the next turn shows them as the last request did.
  CHECK(f.messages.history(f.session).value()[2].content == std::string(40, 'x'));
  options.bounds.max_tokens = 1000;
  auto next = f.turn("again", options);
  CHECK(next->history()[2].content == "[tool lookup: 40 chars, collapsed]");
  CHECK(next->history()[6].content == std::string(40, 'x'));
}

TEST_CASE("between folds each request's messages are a prefix of the next one's", "[session]") {
  Fixture f(0);
  auto options = Fixture::options();
  options.bounds.max_messages = 24;
  gantry::session::Folds folds(f.temp.store(), f.provider, options.bounds, options.fold);
  std::vector<ChatMessage> last;
  std::string summary;
  int folded = 0;
  for (int turn = 0; turn < 20; ++turn) {
    Conversation c(f.temp.store(), &folds, options);
    REQUIRE(c.open("chat").isOk());
    REQUIRE(c.recordUser("question " + std::to_string(turn), {}, {}).isOk());
    REQUIRE(c.bound().isOk());
    lookups(c, 1);
    const auto& sent = c.history();
    INFO("turn " << turn);
    if (c.summary() != summary) {
      ++folded;  // a fold: the one step that may change what was sent before
    } else {
      REQUIRE(sent.size() > last.size());
      for (std::size_t i = 0; i < last.size(); ++i) CHECK(sent[i].content == last[i].content);
    }
    summary = c.summary();
    last = sent;
    f.provider.reply("Summary " + std::to_string(turn));
    REQUIRE(c.recordReply({Role::kAssistant, "answer", {}, {}, {}, {}, {}}).isOk());
    last.push_back(c.history().back());
    if (c.foldDue()) folds.request(c.sessionId());
    folds.waitIdle();
  }
  CHECK(folded >= 2);
  CHECK(folded <= 6);
}
