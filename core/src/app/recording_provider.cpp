#include "app/recording_provider.h"

#include <optional>

#include "log/log.h"
#include "session/history_bounds.h"
#include "store/store.h"

namespace gantry::app {

Result<ChatResponse> RecordingProvider::chat(const ChatRequest& request,
                                             const StreamCallbacks* callbacks,
                                             const CancelToken& cancel) noexcept {
  const int64_t started = store::nowMs();
  auto response = inner_.chat(request, callbacks, cancel);
  recordUsage(request, response, started);
  return response;
}

// Endpoints that report no usage get chars/4 estimates, marked as such.
void RecordingProvider::recordUsage(const ChatRequest& request,
                                    const Result<ChatResponse>& response,
                                    int64_t started_ms) noexcept {
  store::UsageRow row;
  row.at = started_ms;
  row.model = inner_.model();
  row.dur_ms = store::nowMs() - started_ms;
  row.outcome = response.isOk() ? "ok" : response.status().isCancelled() ? "cancelled" : "error";
  if (response.isOk()) {
    row.prompt_tokens = response->usage.prompt_tokens;
    row.completion_tokens = response->usage.completion_tokens;
    row.cached_tokens = response->usage.cached_tokens;
    if (!response->model.empty()) row.model = response->model;  // as the endpoint named it
  }
  if (row.prompt_tokens == 0 && row.completion_tokens == 0) {
    row.estimated = true;
    if (request.system) row.prompt_tokens = session::estimateTokens(*request.system);
    if (request.messages) row.prompt_tokens += session::estimateTokens(*request.messages);
    if (response.isOk()) row.completion_tokens = session::estimateTokens(response->message);
  }
  // A cancelled call says nothing of the endpoint's health: the heartbeat keeps the last one
  // that does.
  std::optional<std::string> outcome;
  if (!response.status().isCancelled()) {
    outcome = response.isOk() ? "ok" : "error: " + response.status().message();
  }
  if (on_call_) on_call_(row);
  auto status = usage_.record(row, outcome ? &*outcome : nullptr);
  if (!status.isOk()) log::warn("usage_not_recorded", {{"error", status.message()}});
}

}  // namespace gantry::app
