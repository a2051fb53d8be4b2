#pragma once
/// RecordingProvider: wraps the provider module so every model call's outcome lands in the
/// heartbeat row that `gantry status` prints.

#include "gantry/provider.h"
#include "store/heartbeat_repo.h"

namespace gantry::app {

class RecordingProvider final : public Provider {
 public:
  RecordingProvider(Provider& inner, store::HeartbeatRepo& heartbeat)
      : inner_(inner), heartbeat_(heartbeat) {}

  Result<ChatResponse> chat(const ChatRequest& request, const StreamCallbacks* callbacks,
                            const CancelToken& cancel) noexcept override {
    auto response = inner_.chat(request, callbacks, cancel);
    if (!response.status().isCancelled()) {
      heartbeat_.modelOutcome(response.isOk() ? "ok" : "error: " + response.status().message());
    }
    return response;
  }
  std::string model() const noexcept override { return inner_.model(); }

 private:
  Provider& inner_;
  store::HeartbeatRepo& heartbeat_;
};

}  // namespace gantry::app
