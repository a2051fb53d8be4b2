// The `ask` policy inside a turn (DESIGN 8): asked, waited for, run once on a yes, refused on a
// no, parked when undecided and continued by a later decision.

#include <sqlite3.h>

#include <catch2/catch.hpp>
#include <regex>

#include "agent/agent.h"
#include "unit/agent/agent_fixture.h"

using gantry::CancelToken;
using gantry::Role;
using gantry::store::ApprovalRepo;
using gantry::store::ApprovalState;
using gantry::testing::AgentFixture;
using gantry::testing::call;

namespace {

/// The approval id in a request notice ("… /approve ID or …").
std::string approvalId(const std::string& text) {
  std::smatch m;
  return std::regex_search(text, m, std::regex("/approve ([a-z2-7]{8})")) ? m[1].str() : "";
}

/// One text column of the newest tool-call row, read on a connection of its own.
std::string lastCallColumn(AgentFixture& f, const char* column) {
  sqlite3* db = nullptr;
  std::string value = "?";
  std::string sql = std::string("SELECT COALESCE(") + column +
                    ", 'NULL') FROM tool_calls ORDER BY id DESC LIMIT 1";
  if (sqlite3_open_v2(f.temp.store().path().c_str(), &db, SQLITE_OPEN_READONLY, nullptr) ==
      SQLITE_OK) {
    sqlite3_stmt* stmt = nullptr;
    if (sqlite3_prepare_v2(db, sql.c_str(), -1, &stmt, nullptr) == SQLITE_OK &&
        sqlite3_step(stmt) == SQLITE_ROW) {
      value = reinterpret_cast<const char*>(sqlite3_column_text(stmt, 0));
    }
    sqlite3_finalize(stmt);
  }
  sqlite3_close(db);
  return value;
}

/// A fixture whose `lookup` tool asks first; the owner answers each notice with answer.
struct AskFixture : AgentFixture {
  std::string asked_id;
  explicit AskFixture(std::optional<bool> answer) {
    tools.policies["lookup"] = gantry::tools::Policy::kAsk;
    options.runner.approval_wait = std::chrono::minutes(5);
    observer.on_notice = [this, answer](const std::string& text) {
      asked_id = approvalId(text);
      if (answer) approvals.decide(asked_id, *answer, "owner-7", "chat");
    };
  }
  gantry::agent::TurnResult continueWith(const std::string& id) {
    CancelToken cancel;
    auto request = AgentFixture::request("");
    request.approval_id = id;
    return agent().run(request, observer, cancel);
  }
};

}  // namespace

TEST_CASE("an ask tool approved in time runs once and the turn goes on", "[agent][approvals]") {
  AskFixture f(true);
  f.provider.callTools({call("c1", "lookup", R"({"q":"x"})")});
  f.provider.reply("found it");
  auto result = f.run("look it up");
  REQUIRE(result.status.isOk());
  CHECK(result.reply == "found it");
  CHECK(f.tools.started() == std::vector<std::string>{"lookup"});
  REQUIRE(f.asked_id.size() == 8);
  auto notice = f.observer.events();
  CHECK(std::find(notice.begin(), notice.end(),
                  "notice 🔐 Approval needed to run lookup with:\nq: \"x\"\nAnswer /approve " +
                      f.asked_id + " or /deny " + f.asked_id + " (expires in 15 min).") !=
        notice.end());
  CHECK(f.provider.requests().at(1).messages.back().content == "ok lookup");
  CHECK(lastCallColumn(f, "policy") == "ask");
  CHECK(lastCallColumn(f, "approval_id") == f.asked_id);
  CHECK(lastCallColumn(f, "decided_by") == "owner-7");
  CHECK(lastCallColumn(f, "status") == "ok");
  CHECK(ApprovalRepo(f.temp.store()).find(f.asked_id).value()->state == ApprovalState::kUsed);
}

TEST_CASE("an ask tool denied in time is not run and the model hears why", "[agent][approvals]") {
  AskFixture f(false);
  f.provider.callTools({call("c1", "lookup")});
  f.provider.reply("ok, I will not");
  auto result = f.run("look it up");
  REQUIRE(result.status.isOk());
  CHECK(f.tools.started().empty());
  std::string fed = f.provider.requests().at(1).messages.back().content;
  CHECK(fed.find("the owner denied running lookup (approval " + f.asked_id + ")") !=
        std::string::npos);
  CHECK(lastCallColumn(f, "policy") == "ask");
  CHECK(lastCallColumn(f, "decided_by") == "owner-7");
  CHECK(lastCallColumn(f, "status") == "error");
}

TEST_CASE("an undecided ask ends the turn waiting, and a later yes continues it once",
          "[agent][approvals]") {
  AskFixture f(std::nullopt);
  f.options.runner.approval_wait = std::chrono::milliseconds(0);
  f.provider.callTools({call("c1", "lookup", R"({"q":"x"})")});
  auto waiting = f.run("look it up");
  REQUIRE(waiting.status.isOk());
  CHECK(waiting.reply == "⏸ Waiting for your approval to run lookup: /approve " + f.asked_id +
                             " or /deny " + f.asked_id + ". I will go on once you decide.");
  CHECK(f.provider.requests().size() == 1);
  CHECK(f.tools.started().empty());
  CHECK(lastCallColumn(f, "result").rfind("not run yet: waiting for the owner's approval", 0) == 0);
  auto row = ApprovalRepo(f.temp.store()).find(f.asked_id).value();
  CHECK(row->follow_up == gantry::store::FollowUp::kParked);

  REQUIRE(f.approvals.decide(f.asked_id, true, "cli", {}).isOk());
  f.provider.reply("here it is");
  auto continued = f.continueWith(f.asked_id);
  REQUIRE(continued.status.isOk());
  CHECK(continued.reply == "here it is");
  CHECK(f.tools.started() == std::vector<std::string>{"lookup"});
  auto sent = f.provider.requests().at(1).messages;
  CHECK(sent.back().role == Role::kTool);
  CHECK(sent.back().content == "ok lookup");
  CHECK(sent.at(sent.size() - 2).tool_calls.at(0).arguments == R"({"q":"x"})");
  CHECK(lastCallColumn(f, "decided_by") == "cli");

  // The yes is spent: running the continuation again runs nothing.
  f.provider.reply("again?");
  CHECK(f.continueWith(f.asked_id).status.isOk());
  CHECK(f.tools.started().size() == 1);
  CHECK(f.provider.requests().at(2).messages.back().content ==
        "error: approval " + f.asked_id + " was already used; lookup was not run again.");
}

TEST_CASE("a continuation of a changed tool is refused", "[agent][approvals]") {
  AskFixture f(std::nullopt);
  f.options.runner.approval_wait = std::chrono::milliseconds(0);
  f.provider.callTools({call("c1", "lookup")});
  REQUIRE(f.run("look it up").status.isOk());
  REQUIRE(f.approvals.decide(f.asked_id, true, "cli", {}).isOk());
  f.tools.schema_version = " v2";
  f.provider.reply("it changed");
  REQUIRE(f.continueWith(f.asked_id).status.isOk());
  CHECK(f.tools.started().empty());
  CHECK(f.provider.requests().at(1).messages.back().content ==
        "error: lookup was not run: the tool or its server entry changed since approval " +
            f.asked_id + " was asked for.");
}

TEST_CASE("a denied tool's row records the policy", "[agent][approvals]") {
  AgentFixture f;
  f.tools.policies["lookup"] = gantry::tools::Policy::kDeny;
  f.provider.callTools({call("c1", "lookup")});
  f.provider.reply("not allowed");
  REQUIRE(f.run("look it up").status.isOk());
  CHECK(f.tools.started().empty());
  CHECK(lastCallColumn(f, "policy") == "deny");
  CHECK(lastCallColumn(f, "approval_id") == "NULL");
}

TEST_CASE("/cancel while a call waits for approval cancels the turn, and the approval stays open",
          "[agent][approvals]") {
  AskFixture f(std::nullopt);
  CancelToken cancel;
  f.observer.on_notice = [&](const std::string& text) {
    f.asked_id = approvalId(text);
    cancel.cancel();
  };
  f.provider.callTools({call("c1", "lookup")});
  auto result = f.agent().run(AgentFixture::request("look it up"), f.observer, cancel);
  CHECK(result.status.isCancelled());
  CHECK(f.tools.started().empty());
  CHECK(f.provider.requests().size() == 1);
  auto row = ApprovalRepo(f.temp.store()).find(f.asked_id).value();
  CHECK(row->state == ApprovalState::kPending);
  CHECK(row->follow_up == gantry::store::FollowUp::kParked);
}
