#include "app/context_hooks.h"

#include "log/log.h"
#include "memory/hydration.h"
#include "session/summary.h"

namespace gantry::app {

AppContextHooks::AppContextHooks(store::Store& store, Provider& provider, session::Bounds bounds,
                                 store::MemoryRepo* memory)
    : messages_(store), sessions_(store), provider_(provider), bounds_(bounds), memory_(memory) {}

std::vector<ChatMessage> AppContextHooks::bound(int64_t session_id,
                                                std::vector<ChatMessage> history,
                                                std::string* summary) {
  auto result = session::boundHistory(history, bounds_);
  if (!result.dropped.empty()) {
    // Dropped turns leave the history (they stay in the record) and fold into the summary.
    messages_.dropFromHistory(session_id, static_cast<int64_t>(result.dropped.size()));
    fold(session_id, result.dropped);
    log::info("history_trimmed", {{"dropped", std::to_string(result.dropped.size())},
                                  {"kept", std::to_string(result.kept.size())},
                                  {"kept_est_tokens", std::to_string(result.kept_tokens)}});
  }
  if (auto s = sessions_.summary(session_id); s.isOk()) *summary = s.value();
  session::collapseOldToolResults(result.kept, 4);
  return std::move(result.kept);
}

void AppContextHooks::fold(int64_t session_id, const std::vector<ChatMessage>& dropped) {
  auto old = sessions_.summary(session_id);
  CancelToken cancel;
  auto folded = session::foldSummary(provider_, old.isOk() ? old.value() : "", dropped, cancel);
  if (!folded.isOk()) {
    log::warn("summary_fold_failed", {{"error", folded.status().message()}});
    return;  // the old summary stays; the turn still runs
  }
  if (Status s = sessions_.setSummary(session_id, folded.value()); !s.isOk()) {
    log::warn("summary_save_failed", {{"error", s.message()}});
  }
}

std::string AppContextHooks::hydrate(const std::string& message) {
  if (!memory_) return {};
  return memory::hydrationBlock(*memory_, message);
}

}  // namespace gantry::app
