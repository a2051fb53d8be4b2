#include "watch/watch_tools.h"

#include <catch2/catch.hpp>

#include "fakes/fake_tool_source.h"
#include "log/log.h"
#include "store/watch_repo.h"
#include "watch/watch_call.h"
#include "watch_test_util.h"

using gantry::testing::FakeToolSource;
using gantry::tools::CallContext;
using gantry::tools::Policy;
using gantry::tools::ToolResult;
using gantry::watch::WatchTools;
using namespace gantry::watch::test;

namespace {

/// A catalog with one MCP server, "feeds", and the watch tools over it.
struct Fixture {
  explicit Fixture(const std::string& name, int max_watches = 50)
      : store(openStore(name)),
        tools(
            *store, catalog, gantry::cron::loadCronZone("UTC").value(),
            gantry::watch::WatchOptions{true, max_watches, 60}, [this] { ++added; },
            [] { return kNow; }) {
    feeds.server_name = "feeds";
    feeds.name_prefix = "feeds";
    feeds.policies["feeds__secret"] = Policy::kAsk;
    feeds.policies["feeds__forbidden"] = Policy::kDeny;
    catalog.add(&feeds);
    catalog.add(&builtin);
    catalog.add(&tools);
  }
  ToolResult call(const std::string& name, const std::string& arguments,
                  const std::string& chat = "chat-1") {
    return tools.call(name, arguments, CallContext{chat, nullptr, {}});
  }

  FakeToolSource feeds{{"feeds__list", "feeds__secret", "feeds__forbidden"}};
  FakeToolSource builtin{{"memory_recall"}};
  gantry::tools::Catalog catalog;
  std::unique_ptr<gantry::store::Store> store;
  int added = 0;
  WatchTools tools;
};

}  // namespace

TEST_CASE("watch_add stores a watch whose first poll is due at once", "[watch][tools]") {
  Fixture f("tools_add");
  auto result = f.call("watch_add", R"({"tool":"feeds__list","arguments":{"q":"x","a":1},)"
                                    R"("every":"15m","prompt":"Tell me what is new."})");
  INFO(result.text);
  REQUIRE(result.ok);
  CHECK(result.text.rfind("added watch 1: polls feeds__list every 15m. The first poll", 0) == 0);
  CHECK(f.added == 1);
  auto w = gantry::store::WatchRepo(*f.store).get(1).value().value();
  CHECK(w.arguments == R"({"a":1,"q":"x"})");
  CHECK(w.every_seconds == 900);
  CHECK(w.next_poll_at == std::optional<int64_t>(kNow));
  CHECK_FALSE(w.primed);
  CHECK(w.chat_id == "chat-1");
}

TEST_CASE("watch_add raises a short interval to WATCH_MIN_SECONDS and says so", "[watch][tools]") {
  Fixture f("tools_min");
  auto every = f.call("watch_add", R"({"tool":"feeds__list","every":10,"prompt":"p"})");
  REQUIRE(every.ok);
  CHECK(every.text.find("every 1m (raised to the minimum of 1m that WATCH_MIN_SECONDS allows)") !=
        std::string::npos);
  auto schedule =
      f.call("watch_add", R"({"tool":"feeds__list","schedule":"@every 1m","prompt":"p"})");
  REQUIRE(schedule.ok);
  CHECK(schedule.text.find("raised") == std::string::npos);
}

TEST_CASE("watch_add refuses a tool the policy does not allow, a built-in and an unknown one",
          "[watch][tools]") {
  Fixture f("tools_refuse");
  auto ask = f.call("watch_add", R"({"tool":"feeds__secret","every":"1h","prompt":"p"})");
  CHECK_FALSE(ask.ok);
  CHECK(ask.text ==
        "watch_add: cannot watch feeds__secret: the owner's policy for feeds__secret is ask; a "
        "watch calls its tool unattended, so only a tool whose policy is allow can be watched");
  auto deny = f.call("watch_add", R"({"tool":"feeds__forbidden","every":"1h","prompt":"p"})");
  CHECK(deny.text.find("policy for feeds__forbidden is deny") != std::string::npos);
  auto builtin = f.call("watch_add", R"({"tool":"memory_recall","every":"1h","prompt":"p"})");
  CHECK(builtin.text.find("is a built-in tool; only MCP tools can be watched") !=
        std::string::npos);
  auto unknown = f.call("watch_add", R"({"tool":"weather__now","every":"1h","prompt":"p"})");
  CHECK(unknown.text.find("there is no tool named \"weather__now\"") != std::string::npos);
  CHECK(f.added == 0);
}

TEST_CASE("watch_add's argument errors say what to give", "[watch][tools]") {
  Fixture f("tools_errors");
  auto both = f.call("watch_add",
                     R"({"tool":"feeds__list","every":"1h","schedule":"@daily","prompt":"p"})");
  CHECK(both.text.find("give exactly one of \"every\"") != std::string::npos);
  auto neither = f.call("watch_add", R"({"tool":"feeds__list","prompt":"p"})");
  CHECK(neither.text.find("give exactly one of \"every\"") != std::string::npos);
  auto once =
      f.call("watch_add", R"({"tool":"feeds__list","schedule":"2027-01-01T09:00","prompt":"p"})");
  CHECK(once.text.find("not a one-shot time") != std::string::npos);
  auto pointer = f.call(
      "watch_add", R"({"tool":"feeds__list","every":"1h","prompt":"p","items":{"array":"x"}})");
  CHECK(pointer.text.find("items.array \"x\" is not a JSON pointer") != std::string::npos);
  auto secret = f.call(
      "watch_add",
      R"({"tool":"feeds__list","every":"1h","prompt":"p","arguments":{"k":"[redacted:K]"}})");
  CHECK(secret.text.find("[redacted:…] marker") != std::string::npos);
  auto empty = f.call("watch_add", R"({"tool":"feeds__list","every":"1h","prompt":" "})");
  CHECK(empty.text == R"(watch_add: "prompt" must be a non-empty string)");
}

TEST_CASE("watch_add refuses past WATCH_MAX", "[watch][tools]") {
  Fixture f("tools_max", 1);
  REQUIRE(f.call("watch_add", R"({"tool":"feeds__list","every":"1h","prompt":"p"})").ok);
  auto second = f.call("watch_add", R"({"tool":"feeds__list","every":"1h","prompt":"p"})");
  CHECK(second.text ==
        "watch_add: already 1 watches, the most WATCH_MAX allows; remove one with watch_remove "
        "first");
}

TEST_CASE("watch_list shows a watch whose tool is gone, and watch_remove is per chat",
          "[watch][tools]") {
  Fixture f("tools_list");
  REQUIRE(f.call("watch_add", R"({"tool":"feeds__list","every":"1h","prompt":"p"})").ok);
  auto listed = f.call("watch_list", "{}");
  REQUIRE(listed.ok);
  CHECK(listed.text.find(R"("state":"waiting for its first poll")") != std::string::npos);
  f.feeds.setNames({});
  f.feeds.outage_text = "server feeds is down since 10:00; its tools are unavailable for now";
  listed = f.call("watch_list", "{}");
  CHECK(listed.text.find(R"("state":"tool gone: server feeds is down since 10:00)") !=
        std::string::npos);
  CHECK(f.call("watch_list", "{}", "chat-2").text.find(R"("watches":[])") != std::string::npos);
  CHECK_FALSE(f.call("watch_remove", R"({"id":1})", "chat-2").ok);
  auto removed = f.call("watch_remove", R"({"id":1})");
  CHECK(removed.ok);
  CHECK(removed.text == "removed watch 1 (feeds__list)");
}

TEST_CASE("a watched call runs only under allow and comes back redacted", "[watch][tools]") {
  Fixture f("tools_call");
  gantry::log::addSecret("hunter2-watch-secret", "FEED_TOKEN");
  f.feeds.handler = [](const std::string&, const std::string& arguments) {
    return ToolResult{true, "token hunter2-watch-secret for " + arguments};
  };
  CallContext context{"chat-1", nullptr, {}};
  auto result = gantry::watch::callWatched(f.catalog, "feeds__list", R"({"b":1, "a":2})", context);
  CHECK(result.ok);
  CHECK(result.text.find("hunter2-watch-secret") == std::string::npos);
  CHECK(result.text.find(R"({"a":2,"b":1})") != std::string::npos);
  auto refused = gantry::watch::callWatched(f.catalog, "feeds__secret", "{}", context);
  CHECK_FALSE(refused.ok);
  CHECK(f.feeds.started() == std::vector<std::string>{"feeds__list"});
}
