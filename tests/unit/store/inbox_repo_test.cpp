#include "store/inbox_repo.h"

#include <catch2/catch.hpp>
#include <filesystem>

namespace fs = std::filesystem;
using namespace gantry;

TEST_CASE("inbox messages stay pending until handled, images included", "[store]") {
  fs::path dir = fs::temp_directory_path() / ("gantry_inbox_test_" + std::to_string(::getpid()));
  fs::create_directories(dir);
  fs::remove(dir / "inbox.db");
  auto path = (dir / "inbox.db").string();
  int64_t first = 0;
  {
    auto s = store::Store::open(path);
    REQUIRE(s.isOk());
    store::InboxRepo inbox(*s.value());
    InboundMessage photo{"42", "7", "Ann", "look", {{"image/jpeg", "AAAA", ""}}, "m1"};
    first = inbox.add(photo).value();
    auto second = inbox.add({"42", "7", "Ann", "and this", {}, "m2"}).value();
    REQUIRE(inbox.markHandled({second}).isOk());
  }
  auto s = store::Store::open(path);  // a restart
  REQUIRE(s.isOk());
  store::InboxRepo inbox(*s.value());
  auto pending = inbox.pending();
  REQUIRE(pending.isOk());
  REQUIRE(pending->size() == 1);
  CHECK(pending.value()[0].first == first);
  CHECK(pending.value()[0].second.text == "look");
  CHECK(pending.value()[0].second.message_id == "m1");
  REQUIRE(pending.value()[0].second.images.size() == 1);
  CHECK(pending.value()[0].second.images[0].data_base64 == "AAAA");
  REQUIRE(inbox.markHandled({first}).isOk());
  CHECK(inbox.pending()->empty());
}

TEST_CASE("a platform message is seen again by its chat and id, one without an id never",
          "[store]") {
  fs::path dir = fs::temp_directory_path() / ("gantry_inbox_test_" + std::to_string(::getpid()));
  fs::create_directories(dir);
  fs::remove(dir / "seen.db");
  auto s = store::Store::open((dir / "seen.db").string());
  REQUIRE(s.isOk());
  store::InboxRepo inbox(*s.value());
  InboundMessage first{"42", "7", "Ann", "hi", {}, "m1"};
  InboundMessage unnumbered{"42", "7", "Ann", "hi", {}, ""};
  CHECK_FALSE(inbox.seen(first).value());
  REQUIRE(inbox.add(first).isOk());
  REQUIRE(inbox.add(unnumbered).isOk());
  CHECK(inbox.seen(first).value());
  CHECK_FALSE(inbox.seen({"43", "7", "Ann", "hi", {}, "m1"}).value());  // another chat
  CHECK_FALSE(inbox.seen(unnumbered).value());
}
