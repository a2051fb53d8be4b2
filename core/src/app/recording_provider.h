#pragma once
/// RecordingProvider: wraps the provider module so every model call leaves its outcome in
/// the heartbeat row that `gantry status` prints and one row in the usage record.

#include "gantry/provider.h"
#include "store/heartbeat_repo.h"
#include "store/usage_repo.h"

namespace gantry::app {

class RecordingProvider final : public Provider {
 public:
  RecordingProvider(Provider& inner, store::HeartbeatRepo& heartbeat, store::UsageRepo& usage)
      : inner_(inner), heartbeat_(heartbeat), usage_(usage) {}

  Result<ChatResponse> chat(const ChatRequest& request, const StreamCallbacks* callbacks,
                            const CancelToken& cancel) noexcept override;
  std::string model() const noexcept override { return inner_.model(); }

 private:
  void recordUsage(const ChatRequest& request, const Result<ChatResponse>& response,
                   int64_t started_ms) noexcept;

  Provider& inner_;
  store::HeartbeatRepo& heartbeat_;
  store::UsageRepo& usage_;
};

}  // namespace gantry::app
