#include "agent/agent.h"

#include <sqlite3.h>

#include <catch2/catch.hpp>
#include <mutex>
#include <thread>

#include "fakes/one_shot_event.h"
#include "store/inbox_repo.h"
#include "store/turn_repo.h"
#include "unit/agent/agent_fixture.h"

using gantry::CancelToken;
using gantry::Role;
using gantry::Status;
using gantry::testing::AgentFixture;
using gantry::testing::call;
using gantry::testing::OneShotEvent;
using gantry::tools::ToolResult;

namespace {

/// One integer from a query on the store's file, read on a connection of its own.
int64_t queryInt(const std::string& path, const char* sql) {
  sqlite3* db = nullptr;
  int64_t value = -1;
  if (sqlite3_open_v2(path.c_str(), &db, SQLITE_OPEN_READONLY, nullptr) == SQLITE_OK) {
    sqlite3_busy_timeout(db, 2000);
    sqlite3_stmt* stmt = nullptr;
    if (sqlite3_prepare_v2(db, sql, -1, &stmt, nullptr) == SQLITE_OK &&
        sqlite3_step(stmt) == SQLITE_ROW) {
      value = sqlite3_column_int64(stmt, 0);
    }
    sqlite3_finalize(stmt);
  }
  sqlite3_close(db);
  return value;
}

}  // namespace

TEST_CASE("a final text is the reply and is recorded after the user message", "[agent]") {
  AgentFixture f;
  f.provider.reply("hello there");
  auto result = f.run("hi");
  REQUIRE(result.status.isOk());
  CHECK(result.reply == "hello there");
  CHECK(result.model_calls == 1);
  auto record = f.record();
  REQUIRE(record.size() == 2);
  CHECK(record[0].role == Role::kUser);
  CHECK(record[1].content == "hello there");
}

TEST_CASE("the user message, its inbox mark and the open turn are recorded before the model call",
          "[agent]") {
  AgentFixture f;
  f.provider.stall();
  gantry::store::InboxRepo inbox(f.temp.store());
  auto inbox_id = inbox.add({"chat", "user", "User", "hi", {}, "m1"}).value();
  auto request = AgentFixture::request("hi");
  request.inbox_ids = {inbox_id};
  CancelToken cancel;
  std::thread turn([&] { f.agent().run(request, f.observer, cancel); });
  REQUIRE(f.provider.waitForRequests(1));
  CHECK(f.record().size() == 1);
  CHECK(inbox.pending()->empty());
  CHECK(gantry::store::TurnRepo(f.temp.store()).openTurns()->size() == 1);
  cancel.cancel();
  turn.join();
}

TEST_CASE("the assistant message and its tool-call rows are recorded before any tool runs",
          "[agent]") {
  AgentFixture f;
  f.provider.callTools({call("c1", "lookup"), call("c2", "fetch")});
  f.provider.reply("done");
  std::string path = f.temp.store().path();
  std::vector<int64_t> running_rows;
  std::mutex mutex;
  f.tools.handler = [&](const std::string& name, const std::string&) {
    int64_t rows = queryInt(path, "SELECT COUNT(*) FROM tool_calls WHERE status='running'");
    int64_t calls = queryInt(path, "SELECT COUNT(*) FROM messages WHERE tool_calls LIKE '%c2%'");
    std::lock_guard lock(mutex);
    running_rows.push_back(rows * 10 + calls);
    return ToolResult{true, "ok " + name};
  };
  REQUIRE(f.run("look").status.isOk());
  // Each call saw both rows running (a row is finished only after the round) and the
  // assistant message that asked for them.
  CHECK(running_rows == std::vector<int64_t>{21, 21});
  CHECK(queryInt(path, "SELECT COUNT(*) FROM tool_calls WHERE status='ok'") == 2);
}

TEST_CASE("calls of one round run concurrently", "[agent]") {
  AgentFixture f;
  f.provider.callTools({call("c1", "lookup"), call("c2", "fetch")});
  f.provider.reply("done");
  OneShotEvent lookup_started, fetch_started;
  bool met = false;
  f.tools.handler = [&](const std::string& name, const std::string&) {
    // Each call waits for the other to start: only concurrent calls can both get past this.
    (name == "lookup" ? lookup_started : fetch_started).set();
    bool other = (name == "lookup" ? fetch_started : lookup_started).wait();
    if (name == "lookup") met = other;
    return ToolResult{true, name};
  };
  REQUIRE(f.run("both").status.isOk());
  CHECK(met);
  CHECK(f.tools.maxInFlight() == 2);
}

TEST_CASE("calls to a serialized source run one at a time, in call order", "[agent]") {
  AgentFixture f;
  f.provider.callTools({call("c1", "serial__a"), call("c2", "serial__b"), call("c3", "serial__a")});
  f.provider.reply("done");
  OneShotEvent b_started;
  f.serial.handler = [&](const std::string& name, const std::string&) {
    if (name == "serial__b") b_started.set();
    // The first call gives a concurrent second call time to start; it must not.
    if (name == "serial__a" && !b_started.isSet()) {
      CHECK_FALSE(b_started.wait(std::chrono::milliseconds(100)));
    }
    return ToolResult{true, name};
  };
  REQUIRE(f.run("serial").status.isOk());
  CHECK(f.serial.maxInFlight() == 1);
  CHECK(f.serial.started() == std::vector<std::string>{"serial__a", "serial__b", "serial__a"});
}

TEST_CASE("results are kept in tool_call_id order though calls finish out of order", "[agent]") {
  AgentFixture f;
  f.provider.callTools({call("c1", "lookup"), call("c2", "fetch")});
  f.provider.reply("done");
  OneShotEvent fetch_done;
  std::mutex mutex;
  std::vector<std::string> finished;  // the order the handlers returned in
  f.tools.handler = [&](const std::string& name, const std::string&) {
    if (name == "lookup") fetch_done.wait();  // finishes after fetch
    {
      std::lock_guard lock(mutex);
      finished.push_back(name);
    }
    if (name == "fetch") fetch_done.set();
    return ToolResult{true, "result of " + name};
  };
  REQUIRE(f.run("both").status.isOk());
  CHECK(finished == std::vector<std::string>{"fetch", "lookup"});
  auto second = f.provider.requests().at(1).messages;
  REQUIRE(second.size() >= 4);
  CHECK(second[second.size() - 2].tool_call_id == "c1");
  CHECK(second[second.size() - 2].content == "result of lookup");
  CHECK(second.back().tool_call_id == "c2");
}

TEST_CASE("a tool result past TOOL_RESULT_MAX_CHARS is truncated with a note", "[agent]") {
  AgentFixture f;
  f.options.runner.result_max_chars = 10;
  f.provider.callTools({call("c1", "lookup")});
  f.provider.reply("done");
  f.tools.handler = [](const std::string&, const std::string&) {
    return ToolResult{true, std::string(25, 'x')};
  };
  REQUIRE(f.run("big").status.isOk());
  std::string fed = f.provider.requests().at(1).messages.back().content;
  CHECK(fed == std::string(10, 'x') + "\n[truncated: 10 of 25 chars shown]");
  CHECK(f.record()[2].content == fed);
}

TEST_CASE("after TOOL_MAX_ITERATIONS rounds one last call has tools off", "[agent]") {
  AgentFixture f;
  f.options.tool_max_iterations = 2;
  f.provider.callTools({call("c1", "lookup")});
  f.provider.callTools({call("c2", "lookup")});
  f.provider.callTools({call("c3", "lookup")});  // ignored: tools were off
  auto result = f.run("loop");
  REQUIRE(result.status.isOk());
  auto requests = f.provider.requests();
  REQUIRE(requests.size() == 3);
  CHECK(requests[0].tools_offered);
  CHECK(requests[1].tools_offered);
  CHECK_FALSE(requests[2].tools_offered);
  CHECK(result.tool_calls == 2);
  CHECK(result.reply == "(stopped after 2 tool rounds without a final answer)");
}

TEST_CASE("a wrap-up cuts a stalled call short and the last call, tools off, answers", "[agent]") {
  AgentFixture f;
  f.provider.stall();
  f.provider.reply("what I have so far");
  CancelToken cancel;
  CancelToken wrap_up;
  auto request = AgentFixture::request("research this");
  request.wrap_up = &wrap_up;
  request.final_max_tokens = 300;
  gantry::agent::TurnResult result;
  std::thread turn([&] { result = f.agent().run(request, f.observer, cancel); });
  REQUIRE(f.provider.waitForRequests(1));
  wrap_up.cancel();
  turn.join();
  REQUIRE(result.status.isOk());
  CHECK(result.reply == "what I have so far");
  CHECK(result.wrapped_up);
  CHECK(result.rounds_exhausted);
  auto requests = f.provider.requests();
  REQUIRE(requests.size() == 2);
  CHECK(requests[0].tools_offered);
  CHECK(requests[0].max_tokens == 0);
  CHECK_FALSE(requests[1].tools_offered);
  CHECK(requests[1].max_tokens == 300);
}

TEST_CASE("a wrap-up before a round leaves the tools off from then on", "[agent]") {
  AgentFixture f;
  f.provider.callTools({call("c1", "lookup")});
  f.provider.reply("done with what I had");
  CancelToken cancel;
  CancelToken wrap_up;
  auto request = AgentFixture::request("look it up");
  request.wrap_up = &wrap_up;
  f.observer.on_tool_end = [&] { wrap_up.cancel(); };
  auto result = f.agent().run(request, f.observer, cancel);
  REQUIRE(result.status.isOk());
  CHECK(result.wrapped_up);
  CHECK(result.tool_calls == 1);
  auto requests = f.provider.requests();
  REQUIRE(requests.size() == 2);
  CHECK_FALSE(requests[1].tools_offered);
}

TEST_CASE("a cancelled turn stops its model call and records no reply", "[agent]") {
  AgentFixture f;
  f.provider.stall();
  CancelToken cancel;
  gantry::agent::TurnResult result;
  std::thread turn(
      [&] { result = f.agent().run(AgentFixture::request("wait"), f.observer, cancel); });
  REQUIRE(f.provider.waitForRequests(1));
  cancel.cancel();
  turn.join();
  CHECK(result.status.isCancelled());
  CHECK(result.reply.empty());
  CHECK_FALSE(result.progressed);
  CHECK(f.record().size() == 1);
}

TEST_CASE("a streamed reply reaches the observer as it comes", "[agent]") {
  AgentFixture f;
  f.options.stream = true;
  f.provider.reply("hello world", {"hello", " world"});
  REQUIRE(f.run("hi").status.isOk());
  CHECK(f.observer.events() == std::vector<std::string>{"model 0", "text hello", "text  world"});
}

TEST_CASE("tool starts and ends reach the observer for the trace", "[agent]") {
  AgentFixture f;
  f.provider.callTools({call("c1", "lookup"), call("c2", "nonexistent_tool")});
  f.provider.reply("done");
  REQUIRE(f.run("trace").status.isOk());
  auto events = f.observer.events();
  CHECK(std::count(events.begin(), events.end(), "start lookup") == 1);
  CHECK(std::count(events.begin(), events.end(), "end lookup ok") == 1);
  CHECK(std::count(events.begin(), events.end(), "end nonexistent_tool fail") == 1);
}

TEST_CASE("a model failure ends the turn with its message", "[agent]") {
  AgentFixture f;
  f.provider.fail(Status::error("model: HTTP 500"));
  auto result = f.run("hi");
  CHECK(result.status.message() == "model: HTTP 500");
  CHECK(f.record().size() == 1);
}
