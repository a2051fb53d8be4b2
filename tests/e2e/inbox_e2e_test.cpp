// A message received before a crash, but never recorded by a turn, is answered after the
// restart: the inbox keeps it until its turn has recorded it.
#include <signal.h>

#include <catch2/catch.hpp>
#include <thread>

#include "e2e/support/gantry_process.h"
#include "openai/fake_openai_server.h"
#include "store/inbox_repo.h"
#include "telegram/fake_telegram.h"

using gantry::e2e::GantryProcess;
using gantry::e2e::Workspace;
using gantry::testing::FakeOpenAiServer;
using namespace std::chrono_literals;

TEST_CASE("a received message left unanswered by a crash is answered after the restart", "[e2e]") {
  Workspace ws("inbox");
  {
    // The state a crash leaves: the message is in the inbox, no turn recorded it.
    auto store = gantry::store::Store::open(ws.data() + "/gantry.db");
    REQUIRE(store.isOk());
    gantry::store::InboxRepo inbox(*store.value());
    REQUIRE(inbox.add({"111", "111", "Owner", "are you still there?", {}, "7"}).isOk());
  }
  gantry::fakes::FakeTelegram telegram;
  telegram.start();
  FakeOpenAiServer llm;
  auto env = gantry::e2e::stdioEnv(ws, llm.port());
  env["CHANNEL"] = "telegram";
  env["TELEGRAM_BOT_TOKEN"] = telegram.token();
  env["TELEGRAM_ALLOWED_USERS"] = "111";
  env["TELEGRAM_API_BASE"] = telegram.apiBase();
  env["CRON_ENABLED"] = "false";
  GantryProcess g(env);
  bool answered = false;
  for (int i = 0; i < 600 && !answered; ++i) {
    for (const auto& record : telegram.sent()) {
      answered = answered || record.text.find("echo: are you still there?") != std::string::npos;
    }
    if (!answered) std::this_thread::sleep_for(50ms);
  }
  INFO(g.err());
  CHECK(answered);
  CHECK(g.err().find("inbox_replayed") != std::string::npos);
  g.signal(SIGTERM);
  CHECK(g.wait(30s) == 0);
  // Handled now: the next start does not answer it again.
  auto store = gantry::store::Store::open(ws.data() + "/gantry.db");
  REQUIRE(store.isOk());
  CHECK(gantry::store::InboxRepo(*store.value()).pending()->empty());
}
