#include "app/context_hooks.h"

#include "log/log.h"
#include "memory/hydration.h"

namespace gantry::app {

AppContextHooks::AppContextHooks(store::Store& store, Provider& provider, session::Bounds bounds,
                                 store::MemoryRepo* memory, cron::Zone zone,
                                 session::FoldLimits fold)
    : messages_(store),
      sessions_(store),
      provider_(provider),
      bounds_(bounds),
      memory_(memory),
      zone_(std::move(zone)),
      fold_limits_(fold) {}

std::vector<ChatMessage> AppContextHooks::bound(int64_t session_id,
                                                std::vector<ChatMessage> history,
                                                std::string* summary, const CancelToken& cancel) {
  auto result = session::boundHistory(history, bounds_);
  if (!result.dropped.empty()) {
    if (fold(session_id, result.dropped, cancel)) {
      // Dropped turns leave the history (they stay in the record) once they are summarised.
      messages_.dropFromHistory(session_id, static_cast<int64_t>(result.dropped.size()));
      log::info("history_trimmed", {{"dropped", std::to_string(result.dropped.size())},
                                    {"kept", std::to_string(result.kept.size())},
                                    {"kept_est_tokens", std::to_string(result.kept_tokens)}});
    } else {
      result.kept = std::move(history);
    }
  }
  if (auto s = sessions_.summary(session_id); s.isOk()) *summary = s.value();
  session::collapseOldToolResults(result.kept);
  return std::move(result.kept);
}

bool AppContextHooks::fold(int64_t session_id, const std::vector<ChatMessage>& dropped,
                           const CancelToken& cancel) {
  auto old = sessions_.summary(session_id);
  auto folded =
      session::foldSummary(provider_, old.isOk() ? old.value() : "", dropped, cancel, fold_limits_);
  if (!folded.isOk()) {
    log::warn("summary_fold_failed", {{"error", folded.status().message()},
                                      {"kept_unsummarised", std::to_string(dropped.size())}});
    return false;
  }
  if (Status s = sessions_.setSummary(session_id, folded.value()); !s.isOk()) {
    log::warn("summary_save_failed", {{"error", s.message()}});
    return false;
  }
  return true;
}

std::string AppContextHooks::hydrate(const std::string& message) {
  if (!memory_) return {};
  return memory::hydrationBlock(*memory_, message);
}

std::string AppContextHooks::now() { return cron::describeTime(store::nowMs(), zone_); }

}  // namespace gantry::app
