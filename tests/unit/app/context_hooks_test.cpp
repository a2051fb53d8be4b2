#include "app/context_hooks.h"

#include <catch2/catch.hpp>

#include "unit/memory/temp_store.h"
#include "unit/session/scripted_provider.h"

using gantry::CancelToken;
using gantry::ChatMessage;
using gantry::Role;
using gantry::Status;
using gantry::app::AppContextHooks;
using gantry::testing::ScriptedProvider;
using gantry::testing::TempStore;

namespace {

struct Fixture {
  TempStore temp;
  ScriptedProvider provider;
  gantry::store::MessageRepo messages{temp.store()};
  int64_t session = 0;

  Fixture() {
    session = messages.session("chat").value();
    for (int i = 0; i < 6; ++i) {
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
  AppContextHooks hooks() {
    gantry::session::Bounds bounds;
    bounds.max_messages = 6;
    bounds.protected_turns = 2;
    return AppContextHooks(temp.store(), provider, bounds, nullptr, {"UTC", cctz::utc_time_zone()});
  }
  std::vector<ChatMessage> bound(AppContextHooks& hooks, std::string* summary) {
    CancelToken cancel;
    return hooks.bound(session, messages.history(session).value(), summary, cancel);
  }
};

}  // namespace

TEST_CASE("turns past the bounds leave the history once they are summarised", "[app]") {
  Fixture f;
  f.provider.reply("The user asked six questions.");
  auto hooks = f.hooks();
  std::string summary;
  auto kept = f.bound(hooks, &summary);
  CHECK(kept.size() <= 6);
  CHECK(summary == "The user asked six questions.");
  CHECK(f.messages.historyCount(f.session).value() == static_cast<int64_t>(kept.size()));
}

TEST_CASE("a failed fold keeps the oldest turns in the prompt and in the history", "[app]") {
  Fixture f;
  f.provider.fail(Status::error("model: HTTP 500"));
  auto hooks = f.hooks();
  std::string summary;
  auto kept = f.bound(hooks, &summary);
  CHECK(kept.size() == 12);
  CHECK(kept.front().content == "question 0");
  CHECK(summary.empty());
  CHECK(f.messages.historyCount(f.session).value() == 12);
  // The next turn folds them once the model answers.
  f.provider.reply("Six questions.");
  kept = f.bound(hooks, &summary);
  CHECK(kept.size() <= 6);
  CHECK(summary == "Six questions.");
}
