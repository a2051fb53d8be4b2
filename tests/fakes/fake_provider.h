#pragma once
/// FakeProvider: a gantry::Provider that plays a script of replies — text (maybe streamed),
/// tool calls, failures, a stall that lasts until the turn is cancelled, or a reply held back
/// until the test releases it — and records
/// every request it was sent. Thread-safe.

#include <condition_variable>
#include <deque>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "gantry/provider.h"

namespace gantry::testing {

class FakeProvider final : public Provider {
 public:
  /// What one request was sent with.
  struct Request {
    std::vector<ChatMessage> messages;
    bool tools_offered = false;
    std::vector<ToolSchema> tools;  ///< as offered, in order
    std::string response_schema_json;
    int max_tokens = 0;
  };

  /// Queues a reply with this text, streamed in deltas when the request streams.
  void reply(std::string text, std::vector<std::string> deltas = {}) {
    Step step;
    step.response.message.content = std::move(text);
    step.deltas = std::move(deltas);
    push(std::move(step));
  }
  /// Queues a reply calling these tools.
  void callTools(std::vector<ToolCall> calls) {
    Step step;
    step.response.message.tool_calls = std::move(calls);
    push(std::move(step));
  }
  /// Queues this response as it is (reasoning, usage, timings).
  void respond(ChatResponse response) {
    Step step;
    step.response = std::move(response);
    push(std::move(step));
  }
  /// Queues a failure.
  void fail(Status status) {
    Step step;
    step.status = std::move(status);
    push(std::move(step));
  }
  /// Queues a call that blocks until its cancel token is cancelled, then returns cancelled.
  void stall() {
    Step step;
    step.stall = true;
    push(std::move(step));
  }

  /// Queues a reply with this text that returns once release() is called (or cancelled if the
  /// turn is cancelled first).
  void hold(std::string text) {
    Step step;
    step.response.message.content = std::move(text);
    step.held = true;
    push(std::move(step));
  }
  /// Lets held replies return.
  void release() {
    std::lock_guard lock(mutex_);
    released_ = true;
    cv_.notify_all();
  }

  Result<ChatResponse> chat(const ChatRequest& request, const StreamCallbacks* callbacks,
                            const CancelToken& cancel) noexcept override {
    Step step = take(request);
    if (step.stall) return waitForCancel(cancel);
    if (step.held && !waitForRelease(cancel)) return Status::cancelled();
    if (!step.status.isOk()) return step.status;
    if (callbacks && callbacks->on_text) {
      for (const auto& delta : step.deltas) callbacks->on_text(delta);
    }
    step.response.message.role = Role::kAssistant;
    return step.response;
  }
  std::string model() const noexcept override { return "fake-model"; }

  /// Blocks until n requests have arrived (false after a guard time).
  bool waitForRequests(std::size_t n) {
    std::unique_lock lock(mutex_);
    return cv_.wait_for(lock, std::chrono::seconds(10), [&] { return requests_.size() >= n; });
  }
  std::vector<Request> requests() {
    std::lock_guard lock(mutex_);
    return requests_;
  }

 private:
  struct Step {
    ChatResponse response;
    std::vector<std::string> deltas;
    Status status = Status::ok();
    bool stall = false;
    bool held = false;
  };

  void push(Step step) {
    std::lock_guard lock(mutex_);
    script_.push_back(std::move(step));
  }

  Step take(const ChatRequest& request) {
    std::lock_guard lock(mutex_);
    std::vector<ChatMessage> sent;
    if (request.system) sent.push_back(*request.system);
    sent.insert(sent.end(), request.messages->begin(), request.messages->end());
    requests_.push_back({std::move(sent), request.tools && !request.tools->empty(),
                         request.tools ? *request.tools : std::vector<ToolSchema>{},
                         request.response_schema_json, request.max_tokens});
    cv_.notify_all();
    Step step;
    step.status = Status::error("fake provider: no reply queued");
    if (!script_.empty()) {
      step = std::move(script_.front());
      script_.pop_front();
    }
    return step;
  }

  Status waitForCancel(const CancelToken& cancel) {
    // Shared with the callback: cancel() marks the token before it runs its callbacks, so
    // this wait can end while the callback is still to run.
    struct Wake {
      std::mutex m;
      std::condition_variable cv;
    };
    auto wake = std::make_shared<Wake>();
    auto id = cancel.subscribe([wake] {
      std::lock_guard lock(wake->m);
      wake->cv.notify_all();
    });
    {
      std::unique_lock lock(wake->m);
      wake->cv.wait(lock, [&] { return cancel.cancelled(); });
    }
    cancel.unsubscribe(id);
    return Status::cancelled();
  }

  /// True once released, false when cancelled first (or after a guard time).
  bool waitForRelease(const CancelToken& cancel) {
    auto id = cancel.subscribe([this] {
      std::lock_guard lock(mutex_);
      cv_.notify_all();
    });
    bool released = false;
    {
      std::unique_lock lock(mutex_);
      released = cv_.wait_for(lock, std::chrono::seconds(10), [&] {
        return released_ || cancel.cancelled();
      }) && released_;
    }
    cancel.unsubscribe(id);
    return released;
  }

  std::mutex mutex_;
  std::condition_variable cv_;
  bool released_ = false;
  std::deque<Step> script_;
  std::vector<Request> requests_;
};

}  // namespace gantry::testing
