#pragma once
/// RecordingProvider: wraps the provider module so every model call leaves one row in the
/// usage record and its outcome in the heartbeat row that `gantry status` prints.

#include "gantry/provider.h"
#include "store/usage_repo.h"

namespace gantry::app {

class RecordingProvider final : public Provider {
 public:
  RecordingProvider(Provider& inner, store::UsageRepo& usage) : inner_(inner), usage_(usage) {}

  Result<ChatResponse> chat(const ChatRequest& request, const StreamCallbacks* callbacks,
                            const CancelToken& cancel) noexcept override;
  std::string model() const noexcept override { return inner_.model(); }

 private:
  void recordUsage(const ChatRequest& request, const Result<ChatResponse>& response,
                   int64_t started_ms) noexcept;

  Provider& inner_;
  store::UsageRepo& usage_;
};

}  // namespace gantry::app
