#include "watch/watch_command.h"

#include <catch2/catch.hpp>
#include <sstream>

#include "store/watch_repo.h"
#include "watch_test_util.h"

using namespace gantry::watch::test;

namespace {

struct Run {
  int code;
  std::string out;
  std::string err;
};

Run run(gantry::store::Store& store, const std::vector<std::string>& args) {
  std::ostringstream out, err;
  int code =
      gantry::watch::watchCommand(store, args, gantry::cron::loadCronZone("UTC").value(), out, err);
  return {code, out.str(), err.str()};
}

}  // namespace

TEST_CASE("gantry watch list prints one tab-separated row per watch, id first, and rm removes",
          "[watch][command]") {
  auto store = openStore("cmd_list");
  gantry::store::WatchRepo repo(*store);
  gantry::store::Watch w;
  w.chat_id = "12345";
  w.tool = "feeds__list";
  w.arguments = "{}";
  w.every_seconds = 900;
  w.prompt = "new\tposts";
  w.next_poll_at = kNow;
  REQUIRE(repo.addWithinLimit(w, 10).value());
  w.every_seconds = 0;
  w.schedule = "0 8 * * *";
  w.next_poll_at = std::nullopt;
  const int64_t second = repo.addWithinLimit(w, 10).value().value();
  auto failing = repo.get(second).value().value();
  failing.failures = 3;
  failing.last_error = "server feeds is down";
  REQUIRE(repo.saveState(failing).isOk());
  Run listed = run(*store, {"list"});
  CHECK(listed.code == 0);
  CHECK(listed.out ==
        "1\tfeeds__list\tevery 15m\t2026-11-30T22:40\t12345\twaiting for its first poll\tnew "
        "posts\n"
        "2\tfeeds__list\ton schedule \"0 8 * * *\"\tnone\t12345\tfailing (3 polls in a row): "
        "server feeds is down\tnew posts\n");
  Run removed = run(*store, {"rm", "1"});
  CHECK(removed.code == 0);
  CHECK(removed.out == "removed watch 1\n");
  Run again = run(*store, {"rm", "1"});
  CHECK(again.code == 1);
  CHECK(again.err == "gantry watch rm: no watch 1 (see gantry watch list)\n");
  CHECK(run(*store, {"rm", "x"}).code == 2);
  Run usage = run(*store, {});
  CHECK(usage.code == 2);
  CHECK(usage.err == "usage: gantry watch list | gantry watch rm ID\n");
}
