#include "store/watch_repo.h"

#include <catch2/catch.hpp>

#include "watch_test_util.h"

using gantry::store::Watch;
using gantry::store::WatchRepo;
using namespace gantry::watch::test;

namespace {

Watch makeWatch(const std::string& chat = "chat-1") {
  Watch w;
  w.chat_id = chat;
  w.tool = "feeds__list";
  w.arguments = "{}";
  w.every_seconds = 900;
  w.prompt = "summarize";
  w.created_at = kNow;
  w.next_poll_at = kNow;
  return w;
}

}  // namespace

TEST_CASE("a watch is stored, listed, limited and removed with its seen ids", "[watch][store]") {
  auto store = openStore("repo_basic");
  WatchRepo repo(*store);
  auto id = repo.addWithinLimit(makeWatch(), 2).value();
  REQUIRE(id);
  REQUIRE(repo.addWithinLimit(makeWatch("chat-2"), 2).value());
  CHECK_FALSE(repo.addWithinLimit(makeWatch(), 2).value());
  CHECK(repo.list("chat-2").value().size() == 1);
  Watch w = repo.get(*id).value().value();
  CHECK(w.tool == "feeds__list");
  CHECK(w.next_poll_at == std::optional<int64_t>(kNow));
  w.primed = true;
  w.failures = 2;
  w.last_error = "down";
  w.failure_reported = true;
  REQUIRE(repo.saveState(w).isOk());
  Watch saved = repo.get(*id).value().value();
  CHECK(saved.primed);
  CHECK(saved.failures == 2);
  CHECK(saved.last_error == "down");
  CHECK(saved.failure_reported);
  REQUIRE(repo.markSeen(*id, {"a", "b"}, kNow, 10).isOk());
  CHECK(repo.remove(*id).value());
  CHECK_FALSE(repo.remove(*id).value());
  CHECK(repo.seenCount(*id).value() == 0);
}

TEST_CASE("seen ids are bounded per watch, the least recently seen dropped first",
          "[watch][store]") {
  auto store = openStore("repo_seen");
  WatchRepo repo(*store);
  const int64_t id = repo.addWithinLimit(makeWatch(), 10).value().value();
  const int64_t other = repo.addWithinLimit(makeWatch(), 10).value().value();
  REQUIRE(repo.markSeen(other, {"a"}, kNow, 3).isOk());
  REQUIRE(repo.markSeen(id, {"a", "b", "c"}, kNow, 3).isOk());
  // "a" is still in the feed: seen again, it outlives "b" and "c".
  REQUIRE(repo.markSeen(id, {"a", "d"}, kNow + kMinute, 3).isOk());
  CHECK(repo.seenCount(id).value() == 3);
  CHECK(repo.unseen(id, {"a", "b", "c", "d"}).value() == std::vector<std::string>{"b"});
  CHECK(repo.seenCount(other).value() == 1);  // another watch's ids are its own
  REQUIRE(repo.forget(id, {"a"}).isOk());
  CHECK(repo.unseen(id, {"a", "d"}).value() == std::vector<std::string>{"a"});
}
