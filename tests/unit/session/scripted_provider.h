#pragma once
// A Provider that returns canned replies in order and records every request it was sent.

#include <deque>
#include <mutex>
#include <string>
#include <vector>

#include "gantry/provider.h"

namespace gantry::testing {

class ScriptedProvider final : public Provider {
 public:
  /// Queues a reply with this assistant text.
  void reply(std::string text) {
    ChatResponse response;
    response.message.role = Role::kAssistant;
    response.message.content = std::move(text);
    script_.emplace_back(std::move(response));
  }
  /// Queues a failure.
  void fail(Status status) { script_.emplace_back(std::move(status)); }

  Result<ChatResponse> chat(const ChatRequest& request, const StreamCallbacks*,
                            const CancelToken& cancel) noexcept override {
    std::lock_guard lock(mutex_);
    std::vector<ChatMessage> sent;
    if (request.system) sent.push_back(*request.system);
    sent.insert(sent.end(), request.messages->begin(), request.messages->end());
    requests.push_back(std::move(sent));
    tools_offered.push_back(request.tools != nullptr && !request.tools->empty());
    if (cancel.cancelled()) return Status::cancelled();
    if (script_.empty()) return Status::error("scripted provider: no reply queued");
    auto next = std::move(script_.front());
    script_.pop_front();
    return next;
  }
  std::string model() const noexcept override { return "scripted"; }

  std::vector<std::vector<ChatMessage>> requests;
  std::vector<bool> tools_offered;

 private:
  std::mutex mutex_;
  std::deque<Result<ChatResponse>> script_;
};

}  // namespace gantry::testing
