#include "session/summary.h"

#include <catch2/catch.hpp>
#include <condition_variable>
#include <mutex>
#include <thread>

#include "unit/session/scripted_provider.h"
#include "unit/support/chat_message.h"

using gantry::CancelToken;
using gantry::ChatMessage;
using gantry::Role;
using gantry::Status;
using gantry::session::FoldLimits;
using gantry::session::foldSummary;
using gantry::session::summaryBlock;
using gantry::testing::ScriptedProvider;

using gantry::testing::message;

namespace {
std::vector<ChatMessage> dropped() {
  ChatMessage tool = message(Role::kTool, std::string(5000, 'r'));
  tool.name = "search";
  return {message(Role::kUser, "my sister Ann moves to Lisbon in May"),
          message(Role::kAssistant, "Noted, Lisbon in May."), tool};
}
}  // namespace

TEST_CASE("folding sends the old summary and the dropped messages to the model", "[session]") {
  ScriptedProvider provider;
  provider.reply("  Ann, the user's sister,\nmoves to Lisbon in May.  ");
  CancelToken cancel;
  auto folded = foldSummary(provider, "The user likes tea.", dropped(), cancel);
  REQUIRE(folded.isOk());
  CHECK(folded.value() == "Ann, the user's sister, moves to Lisbon in May.");
  REQUIRE(provider.requests.size() == 1);
  const auto& request = provider.requests[0];
  REQUIRE(request.size() == 2);
  CHECK(request[0].role == Role::kSystem);
  CHECK(request[0].content.find("150 words") != std::string::npos);
  CHECK(request[1].content.find("The user likes tea.") != std::string::npos);
  CHECK(request[1].content.find("Lisbon in May") != std::string::npos);
  CHECK(request[1].content.find(std::string(301, 'r')) == std::string::npos);  // tool cut
  CHECK_FALSE(provider.tools_offered[0]);
}

TEST_CASE("folding input is bounded however much was dropped", "[session]") {
  ScriptedProvider provider;
  provider.reply("summary");
  std::vector<ChatMessage> many;
  many.reserve(500);
  for (int i = 0; i < 500; ++i)
    many.push_back(message(Role::kUser, std::string(1000, static_cast<char>('a' + i % 26))));
  CancelToken cancel;
  gantry::session::FoldLimits limits;
  REQUIRE(foldSummary(provider, std::string(10000, 's'), many, cancel, limits).isOk());
  std::size_t sent = 0;
  for (const auto& m : provider.requests[0]) sent += m.content.size();
  CHECK(sent < limits.max_input_chars + 2000);
  CHECK(provider.requests[0][1].content.find("[earlier messages omitted]") != std::string::npos);
}

TEST_CASE("a failed or empty fold is an error and the caller keeps the old summary", "[session]") {
  ScriptedProvider provider;
  provider.fail(Status::retry("HTTP 503"));
  provider.reply("   ");
  CancelToken cancel;
  auto failed = foldSummary(provider, "old", dropped(), cancel);
  CHECK_FALSE(failed.isOk());
  CHECK(failed.status().message().find("HTTP 503") != std::string::npos);
  CHECK_FALSE(foldSummary(provider, "old", dropped(), cancel).isOk());
}

TEST_CASE("a cancelled fold does not call the model", "[session]") {
  ScriptedProvider provider;
  CancelToken cancel;
  cancel.cancel();
  auto folded = foldSummary(provider, "old", dropped(), cancel);
  CHECK(folded.status().isCancelled());
  CHECK(provider.requests.empty());
}

TEST_CASE("nothing dropped keeps the old summary without a model call", "[session]") {
  ScriptedProvider provider;
  CancelToken cancel;
  auto folded = foldSummary(provider, "old", {}, cancel);
  REQUIRE(folded.isOk());
  CHECK(folded.value() == "old");
  CHECK(provider.requests.empty());
}

TEST_CASE("the summary block is labelled and empty for an empty summary", "[session]") {
  CHECK(summaryBlock("") == "");
  CHECK(summaryBlock("Ann moves to Lisbon.") ==
        "[summary of earlier conversation]\nAnn moves to Lisbon.");
}

TEST_CASE("a long summary reply is cut to the limit on a character boundary", "[session]") {
  ScriptedProvider provider;
  std::string long_reply;
  for (int i = 0; i < 1500; ++i) long_reply += "é";
  provider.reply(long_reply);
  CancelToken cancel;
  auto folded = foldSummary(provider, "", dropped(), cancel);
  REQUIRE(folded.isOk());
  CHECK(folded.value().size() <= 2000);
  CHECK(folded.value().size() % 2 == 0);
}

namespace {

// A provider that answers only when cancelled, like a model that never replies.
class SilentProvider final : public gantry::Provider {
 public:
  gantry::Result<gantry::ChatResponse> chat(const gantry::ChatRequest&,
                                            const gantry::StreamCallbacks*,
                                            const CancelToken& cancel) noexcept override {
    auto id = cancel.subscribe([this] {
      std::lock_guard lock(mutex_);
      woken_ = true;
      cv_.notify_all();
    });
    std::unique_lock lock(mutex_);
    cv_.wait(lock, [&] { return woken_; });
    lock.unlock();
    cancel.unsubscribe(id);
    return Status::cancelled("model: cancelled");
  }
  std::string model() const noexcept override { return "silent"; }

 private:
  std::mutex mutex_;
  std::condition_variable cv_;
  bool woken_ = false;
};

}  // namespace

TEST_CASE("the transcript shows what the user wrote, not the context sent with it", "[session]") {
  ScriptedProvider provider;
  provider.reply("Ann moves to Lisbon.");
  CancelToken cancel;
  std::vector<ChatMessage> sent = {
      message(Role::kUser,
              "[memory]\n- (fact) sky: blue\n\n[now] 2026-12-01 09:00 (Tuesday), UTC\n\n"
              "Ann moves to Lisbon")};
  REQUIRE(foldSummary(provider, "", sent, cancel).isOk());
  const auto& prompt = provider.requests.at(0).at(1).content;
  CHECK(prompt.find("user: Ann moves to Lisbon") != std::string::npos);
  CHECK(prompt.find("[memory]") == std::string::npos);
  CHECK(prompt.find("[now]") == std::string::npos);
}

TEST_CASE("a fold the model does not answer gives up after its timeout", "[session]") {
  SilentProvider provider;
  CancelToken cancel;
  FoldLimits limits;
  limits.timeout = std::chrono::milliseconds(100);
  auto start = std::chrono::steady_clock::now();
  auto folded = foldSummary(provider, "old", dropped(), cancel, limits);
  CHECK(std::chrono::steady_clock::now() - start < std::chrono::seconds(5));
  REQUIRE_FALSE(folded.isOk());
  CHECK(folded.status().message().find("no answer from the model within 100 ms") !=
        std::string::npos);
}

TEST_CASE("a fold stops when its turn is cancelled", "[session]") {
  SilentProvider provider;
  CancelToken cancel;
  std::thread canceller([&] {
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
    cancel.cancel();
  });
  auto start = std::chrono::steady_clock::now();
  auto folded = foldSummary(provider, "old", dropped(), cancel);
  canceller.join();
  CHECK(std::chrono::steady_clock::now() - start < std::chrono::seconds(5));
  CHECK(folded.status().isCancelled());
}
