#include "store/message_repo.h"

#include <catch2/catch.hpp>
#include <filesystem>

#include "store/heartbeat_repo.h"

namespace fs = std::filesystem;
using namespace gantry;

namespace {
std::unique_ptr<store::Store> freshStore(const char* name) {
  fs::path dir = fs::temp_directory_path() / ("gantry_msg_test_" + std::to_string(::getpid()));
  fs::create_directories(dir);
  fs::remove(dir / name);
  auto s = store::Store::open((dir / name).string());
  REQUIRE(s.isOk());
  return std::move(s.value());
}
}  // namespace

TEST_CASE("messages round-trip through the record in order with their tool calls", "[store]") {
  auto s = freshStore("roundtrip.db");
  store::MessageRepo repo(*s);
  auto session = repo.session("chat-1");
  REQUIRE(session.isOk());
  CHECK(repo.session("chat-1").value() == session.value());
  ChatMessage user{Role::kUser, "hi", {}, {}, {}, {}, {}};
  ChatMessage assistant{
      Role::kAssistant, "", {}, {{"c1", "memory_recall", "{\"query\":\"x\"}", "sig"}}, {}, {},
      "thinking"};
  ChatMessage tool{Role::kTool, "result", {}, {}, "c1", "memory_recall", {}};
  REQUIRE(repo.append(session.value(), user).isOk());
  REQUIRE(repo.append(session.value(), assistant).isOk());
  REQUIRE(repo.append(session.value(), tool).isOk());
  auto history = repo.history(session.value());
  REQUIRE(history.isOk());
  REQUIRE(history->size() == 3);
  CHECK(history.value()[1].tool_calls.at(0).thought_signature == "sig");
  CHECK(history.value()[1].tool_calls.at(0).arguments == "{\"query\":\"x\"}");
  CHECK(history.value()[1].reasoning == "thinking");
  CHECK(history.value()[2].tool_call_id == "c1");
  REQUIRE(repo.clearHistory(session.value()).isOk());
  CHECK(repo.history(session.value())->empty());
}

TEST_CASE("a tool call left running is closed with a synthetic error, once", "[store]") {
  auto s = freshStore("orphans.db");
  store::MessageRepo repo(*s);
  auto session = repo.session("chat-1").value();
  ChatMessage assistant{Role::kAssistant, "", {}, {{"c9", "slow_tool", "{}", ""}}, {}, {}, {}};
  REQUIRE(repo.appendCalls(session, assistant).isOk());
  auto closed = repo.closeOrphanedToolCalls();
  REQUIRE(closed.isOk());
  REQUIRE(closed->size() == 1);
  CHECK(closed.value()[0].call_id == "c9");
  auto history = repo.history(session).value();
  REQUIRE(history.size() == 2);
  CHECK(history[1].role == Role::kTool);
  CHECK(history[1].tool_call_id == "c9");
  CHECK(history[1].content.find("interrupted by a restart, not re-run") != std::string::npos);
  CHECK(repo.closeOrphanedToolCalls()->empty());
}

TEST_CASE("the heartbeat row records boot, receives and model outcomes", "[store]") {
  auto s = freshStore("heartbeat.db");
  store::HeartbeatRepo hb(*s);
  CHECK(!hb.read().value().has_value());
  REQUIRE(hb.boot(123, 30, "stdio").isOk());
  REQUIRE(hb.beat(store::nowMs()).isOk());
  REQUIRE(hb.modelOutcome("ok").isOk());
  auto row = hb.read().value();
  REQUIRE(row.has_value());
  CHECK(row->pid == 123);
  CHECK(row->channel == "stdio");
  CHECK(row->last_receive_ok_at > 0);
  CHECK(row->last_model_outcome == "ok");
}
