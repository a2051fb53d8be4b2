#pragma once
// An Agent over a temp store, the fake provider and one fake tool source, with an observer
// that records what the turn reported.

#include <atomic>
#include <functional>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "agent/agent.h"
#include "fakes/fake_provider.h"
#include "fakes/fake_tool_source.h"
#include "store/message_repo.h"
#include "unit/memory/temp_store.h"

namespace gantry::testing {

/// Records turn events as "model 0", "text hi", "discard", "start NAME", "end NAME ok|fail".
class RecordingObserver final : public agent::TurnObserver {
 public:
  void onModelCall(int round) override { add("model " + std::to_string(round)); }
  void onText(std::string_view delta) override { add("text " + std::string(delta)); }
  void onTextDiscarded() override { add("discard"); }
  void onToolStart(const std::string& name) override { add("start " + name); }
  /// Runs after each tool end is recorded (on the tool's thread).
  std::function<void()> on_tool_end;
  void onToolEnd(const std::string& name, bool ok, int64_t, std::size_t) override {
    add("end " + name + (ok ? " ok" : " fail"));
    if (on_tool_end) on_tool_end();
  }
  /// Runs for each notice (on the tool's thread), after it is recorded as "notice TEXT".
  std::function<void(const std::string&)> on_notice;
  void onNotice(const std::string& text) override {
    add("notice " + text);
    if (on_notice) on_notice(text);
  }
  std::vector<std::string> events() {
    std::lock_guard lock(mutex_);
    return events_;
  }

 private:
  void add(std::string event) {
    std::lock_guard lock(mutex_);
    events_.push_back(std::move(event));
  }
  std::mutex mutex_;
  std::vector<std::string> events_;
};

inline ToolCall call(std::string id, std::string name, std::string arguments = "{}") {
  return {std::move(id), std::move(name), std::move(arguments), {}};
}

struct AgentFixture {
  TempStore temp;
  FakeProvider provider;
  FakeToolSource tools{{"lookup", "fetch"}};
  FakeToolSource serial{{"serial__a", "serial__b"}, true};
  tools::Catalog catalog;
  store::MessageRepo messages{temp.store()};
  RecordingObserver observer;
  agent::AgentOptions options;
  std::atomic<int64_t> clock_skew_ms{0};  ///< moves the approvals' clock ahead
  approvals::Approvals approvals{temp.store(), approvalOptions()};
  /// Set before agent() is first called to publish through it (else the whole catalog is).
  std::unique_ptr<tools::Publication> publication;
  std::unique_ptr<agent::Agent> agent_;

  approvals::ApprovalOptions approvalOptions() {
    approvals::ApprovalOptions o;
    o.clock = [this] { return store::nowMs() + clock_skew_ms.load(); };
    o.poll = std::chrono::milliseconds(5);
    return o;
  }

  AgentFixture() {
    catalog.add(&tools);
    catalog.add(&serial);
  }
  agent::Agent& agent() {
    if (!agent_) {
      agent_ = std::make_unique<agent::Agent>(provider, catalog, temp.store(), options, &approvals,
                                              publication.get());
      agent_->setPersona("You are a test.");
    }
    return *agent_;
  }
  /// A request for a new message on chat "chat".
  static agent::TurnRequest request(std::string text) {
    agent::TurnRequest request;
    request.chat_id = "chat";
    request.text = std::move(text);
    return request;
  }
  agent::TurnResult run(const std::string& text) {
    CancelToken cancel;
    return agent().run(request(text), observer, cancel);
  }
  /// The chat's history as recorded.
  std::vector<ChatMessage> record() {
    return messages.history(messages.session("chat").value()).value();
  }
};

}  // namespace gantry::testing
