#pragma once
/// RecordingProvider: wraps the provider module so every model call leaves one row in the
/// usage record and its outcome in the heartbeat row that `gantry status` prints.

#include <functional>

#include "gantry/provider.h"
#include "store/usage_repo.h"

namespace gantry::app {

class RecordingProvider final : public Provider {
 public:
  /// Called after each call with its row (the daily cap counts it, budget/daily_budget.h).
  using OnCall = std::function<void(const store::UsageRow&)>;

  RecordingProvider(Provider& inner, store::UsageRepo& usage, OnCall on_call = nullptr)
      : inner_(inner), usage_(usage), on_call_(std::move(on_call)) {}

  Result<ChatResponse> chat(const ChatRequest& request, const StreamCallbacks* callbacks,
                            const CancelToken& cancel) noexcept override;
  std::string model() const noexcept override { return inner_.model(); }

 private:
  void recordUsage(const ChatRequest& request, const Result<ChatResponse>& response,
                   int64_t started_ms) noexcept;

  Provider& inner_;
  store::UsageRepo& usage_;
  OnCall on_call_;
};

}  // namespace gantry::app
