#include "approvals/approvals.h"

#include <sys/stat.h>

#include <catch2/catch.hpp>
#include <sstream>
#include <thread>

#include "approvals/approvals_command.h"
#include "unit/memory/temp_store.h"

using gantry::CancelToken;
using gantry::approvals::ApprovalOptions;
using gantry::approvals::Approvals;
using gantry::approvals::AskedCall;
using gantry::approvals::digestOf;
using gantry::store::ApprovalRepo;
using gantry::store::ApprovalState;
using gantry::store::FollowUp;
using gantry::testing::TempStore;

namespace {

constexpr int64_t kStart = 1'800'000'000'000;

/// Approvals over a temp store with a clock the test moves.
struct Fixture {
  TempStore temp;
  int64_t clock = kStart;
  Approvals approvals{temp.store(), options()};

  ApprovalOptions options() {
    ApprovalOptions o;
    o.clock = [this] { return clock; };
    o.poll = std::chrono::milliseconds(5);
    return o;
  }
  AskedCall asked(const std::string& chat = "chat-1", const std::string& args = R"({"n":1})") {
    return {chat, {"call_1", "shell__run", args, {}}, "schema v1"};
  }
  std::string request(const std::string& chat = "chat-1") {
    auto row = approvals.request(asked(chat));
    REQUIRE(row.isOk());
    return row->id;
  }
  std::string digest(const std::string& fingerprint = "schema v1") {
    return digestOf(fingerprint, "shell__run", R"({"n":1})");
  }
};

}  // namespace

TEST_CASE("a request is a pending row bound to the call's digest", "[approvals]") {
  Fixture f;
  auto row = f.approvals.request(f.asked());
  REQUIRE(row.isOk());
  CHECK(row->id.size() == 8);
  CHECK(row->id.find_first_not_of("abcdefghijklmnopqrstuvwxyz234567") == std::string::npos);
  CHECK(row->state == ApprovalState::kPending);
  CHECK(row->expires_at == kStart + 15L * 60 * 1000);
  CHECK(row->digest == f.digest());
  CHECK(row->digest != digestOf("schema v1", "shell__run", R"({"n":2})"));
  CHECK(row->digest != f.digest("schema v2"));
  CHECK(f.approvals.request(f.asked())->id != row->id);
}

TEST_CASE("an approval is decided once and claimed once", "[approvals]") {
  Fixture f;
  auto id = f.request();
  auto approved = f.approvals.decide(id, true, "42", "chat-1");
  REQUIRE(approved.isOk());
  CHECK(approved->state == ApprovalState::kApproved);
  CHECK(approved->decided_by == "42");
  CHECK(approved->decided_at == kStart);

  auto second = f.approvals.decide(id, false, "42", "chat-1");
  REQUIRE_FALSE(second.isOk());
  CHECK(second.status().message() == "approval " + id + " was already approved");

  CHECK(f.approvals.claim(id, f.digest()).isOk());
  auto replay = f.approvals.claim(id, f.digest());
  REQUIRE_FALSE(replay.isOk());
  CHECK(replay.message() == "approval " + id + " was used");
  CHECK_FALSE(f.approvals.decide(id, true, "cli", {}).isOk());
}

TEST_CASE("an approval is decided only from its own chat", "[approvals]") {
  Fixture f;
  auto id = f.request("chat-1");
  auto other = f.approvals.decide(id, true, "7", "chat-2");
  REQUIRE_FALSE(other.isOk());
  CHECK(other.status().message() == "there is no approval " + id + " for this chat");
  CHECK(f.approvals.decide("zzzzzzzz", true, "7", "chat-1").status().message() ==
        "there is no approval zzzzzzzz for this chat");
  // The CLI decides any chat's; ids are case-insensitive (typed on a phone).
  std::string upper = id;
  for (auto& c : upper) c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
  CHECK(f.approvals.decide(upper, true, "cli", {}).isOk());
}

TEST_CASE("an undecided approval expires, and expired is not denied", "[approvals]") {
  Fixture f;
  auto id = f.request();
  f.clock += 15L * 60 * 1000;
  auto late = f.approvals.decide(id, true, "42", "chat-1");
  REQUIRE_FALSE(late.isOk());
  CHECK(late.status().message() == "approval " + id + " has expired");
  auto row = ApprovalRepo(f.temp.store()).find(id);
  CHECK(row.value()->state == ApprovalState::kExpired);
  CHECK(row.value()->decided_by.empty());
  CHECK(f.approvals.pending()->empty());
  CHECK(f.approvals.claim(id, f.digest()).message() == "approval " + id + " is expired");
}

TEST_CASE("a denial is never claimed", "[approvals]") {
  Fixture f;
  auto id = f.request();
  REQUIRE(f.approvals.decide(id, false, "42", "chat-1").isOk());
  CHECK(f.approvals.claim(id, f.digest()).message() == "the owner denied it");
}

TEST_CASE("a yes given before the tool changed cannot run the changed tool", "[approvals]") {
  Fixture f;
  auto id = f.request();
  REQUIRE(f.approvals.decide(id, true, "42", "chat-1").isOk());
  auto changed = f.approvals.claim(id, f.digest("schema v2"));
  REQUIRE_FALSE(changed.isOk());
  CHECK(changed.message() ==
        "the tool or its server entry changed since approval " + id + " was asked for");
  CHECK_FALSE(f.approvals.claim(id, f.digest()).isOk());  // spent by the refusal
}

TEST_CASE("a wait ends at a decision made on another thread", "[approvals]") {
  Fixture f;
  auto id = f.request();
  std::thread decider([&] { f.approvals.decide(id, true, "cli", {}); });
  CancelToken cancel;
  auto row = f.approvals.await(id, std::chrono::minutes(5), cancel);
  decider.join();
  REQUIRE(row.isOk());
  CHECK(row->state == ApprovalState::kApproved);
}

TEST_CASE("a wait ends at its bound or at cancel, leaving the approval pending", "[approvals]") {
  Fixture f;
  auto id = f.request();
  CancelToken cancel;
  CHECK(f.approvals.await(id, std::chrono::milliseconds(0), cancel)->state ==
        ApprovalState::kPending);
  cancel.cancel();
  CHECK(f.approvals.await(id, std::chrono::minutes(5), cancel)->state == ApprovalState::kPending);
}

TEST_CASE("a parked approval is handed over once, when settled", "[approvals]") {
  Fixture f;
  auto decided = f.request();
  auto expiring = f.request();
  auto undecided = f.request();
  for (const auto& id : {decided, expiring, undecided}) REQUIRE(f.approvals.park(id).value());
  CHECK(f.approvals.anyParkedPending());
  CHECK(f.approvals.takeSettledParked()->empty());

  REQUIRE(f.approvals.decide(decided, true, "cli", {}).isOk());
  auto settled = f.approvals.takeSettledParked();
  REQUIRE(settled->size() == 1);
  CHECK(settled->front().id == decided);
  CHECK(f.approvals.takeSettledParked()->empty());

  ApprovalRepo(f.temp.store()).setFollowUp(undecided, FollowUp::kParked, FollowUp::kDone);
  f.clock += 16L * 60 * 1000;
  settled = f.approvals.takeSettledParked();
  REQUIRE(settled->size() == 1);
  CHECK(settled->front().id == expiring);
  CHECK(settled->front().state == ApprovalState::kExpired);
  CHECK_FALSE(f.approvals.anyParkedPending());
}

TEST_CASE("a decision that lands before the park stays with the waiting turn", "[approvals]") {
  Fixture f;
  auto id = f.request();
  REQUIRE(f.approvals.decide(id, true, "cli", {}).isOk());
  CHECK_FALSE(f.approvals.park(id).value());
  CHECK(f.approvals.takeSettledParked()->empty());
}

TEST_CASE("approvals a crash left waiting are parked at boot", "[approvals]") {
  Fixture f;
  auto pending = f.request();
  auto approved = f.request();
  auto denied = f.request();
  REQUIRE(f.approvals.decide(approved, true, "cli", {}).isOk());
  REQUIRE(f.approvals.decide(denied, false, "cli", {}).isOk());
  CHECK(f.approvals.parkOrphans().value() == 2);
  auto settled = f.approvals.takeSettledParked();
  REQUIRE(settled->size() == 1);
  CHECK(settled->front().id == approved);
  CHECK(f.approvals.anyParkedPending());
  CHECK(ApprovalRepo(f.temp.store()).find(pending).value()->follow_up == FollowUp::kParked);
}

TEST_CASE("gantry approvals lists pending ones, approve and deny decide", "[approvals]") {
  Fixture f;
  auto id = f.request();
  f.clock += 1000;  // listed oldest first
  auto other = f.request("chat\t2");
  std::ostringstream out, err;
  REQUIRE(gantry::approvals::approvalsCommand(f.approvals, {"approvals"}, out, err) == 0);
  std::istringstream lines(out.str());
  std::string line;
  std::getline(lines, line);
  CHECK(line.rfind(id + "\tchat-1\tshell__run\t", 0) == 0);
  CHECK(line.substr(line.size() - 7) == R"({"n":1})");
  std::getline(lines, line);
  CHECK(line.rfind(other + "\tchat 2\t", 0) == 0);

  out.str("");
  CHECK(gantry::approvals::approvalsCommand(f.approvals, {"approve", id}, out, err) == 0);
  CHECK(out.str() == "approved " + id + ": shell__run\n");
  CHECK(gantry::approvals::approvalsCommand(f.approvals, {"deny", id}, out, err) == 1);
  CHECK(err.str() == "gantry deny: approval " + id + " was already approved\n");
  CHECK(gantry::approvals::approvalsCommand(f.approvals, {"deny", other}, out, err) == 0);
  CHECK(gantry::approvals::approvalsCommand(f.approvals, {"approve"}, out, err) == 2);
  out.str("");
  REQUIRE(gantry::approvals::approvalsCommand(f.approvals, {"approvals"}, out, err) == 0);
  CHECK(out.str().empty());
}

TEST_CASE("a decision written into the table without the seal key is undone, never run",
          "[approvals][sandbox]") {
  Fixture f;
  const std::string id = f.request();
  ApprovalRepo repo(f.temp.store());
  // What a process that reached the database file could do: flip the row to approved.
  REQUIRE(repo.decide(id, ApprovalState::kApproved, "cli", f.clock, "0badc0de").value());
  auto claimed = f.approvals.claim(id, f.digest());
  CHECK_FALSE(claimed.isOk());
  CHECK(repo.find(id).value()->state == ApprovalState::kPending);
  // A waiting turn does not take a forged decision either.
  REQUIRE(repo.decide(id, ApprovalState::kApproved, "owner-7", f.clock, "").value());
  auto waited = f.approvals.await(id, std::chrono::milliseconds(0), CancelToken());
  REQUIRE(waited.isOk());
  CHECK(waited->state == ApprovalState::kPending);
  // The owner's real decision still counts, once.
  REQUIRE(f.approvals.decide(id, true, "cli", {}).isOk());
  CHECK(f.approvals.claim(id, f.digest()).isOk());
  CHECK_FALSE(f.approvals.claim(id, f.digest()).isOk());
}

TEST_CASE("a request the daemon never made is disowned and not continued", "[approvals][sandbox]") {
  Fixture f;
  gantry::store::ApprovalRow forged;
  forged.id = "forged22";
  forged.chat_id = "chat-1";
  forged.tool = "shell__run";
  forged.call_id = "x";
  forged.arguments = R"({"n":1})";
  forged.digest = f.digest();
  forged.created_at = f.clock;
  forged.expires_at = f.clock + 60000;
  forged.state = ApprovalState::kApproved;
  forged.decided_by = "cli";
  forged.follow_up = FollowUp::kParked;
  REQUIRE(ApprovalRepo(f.temp.store()).insert(forged).isOk());
  CHECK(f.approvals.pending().value().empty());
  auto settled = f.approvals.takeSettledParked();
  REQUIRE(settled.isOk());
  CHECK(settled->empty());
  CHECK_FALSE(f.approvals.claim("forged22", f.digest()).isOk());
  CHECK(ApprovalRepo(f.temp.store()).find("forged22").value()->state == ApprovalState::kExpired);
}

TEST_CASE("the seal key is made once, private, and read back by every process", "[approvals]") {
  TempStore temp;
  const std::string dir = temp.path().substr(0, temp.path().rfind('/'));
  auto first = gantry::approvals::loadSealKey(dir);
  REQUIRE(first.isOk());
  CHECK(first->size() == 32);
  auto again = gantry::approvals::loadSealKey(dir);
  REQUIRE(again.isOk());
  CHECK(again.value() == first.value());
  struct stat info {};
  REQUIRE(::stat((dir + "/approvals.key").c_str(), &info) == 0);
  CHECK((info.st_mode & 0777) == 0600);
}
