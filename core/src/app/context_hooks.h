#pragma once
/// ContextHooks of the application: history bounds with the rolling summary (session/) and
/// memory hydration (memory/).

#include "agent/agent.h"
#include "gantry/provider.h"
#include "session/history_bounds.h"
#include "session/summary.h"
#include "store/memory_repo.h"
#include "store/message_repo.h"
#include "store/session_repo.h"

namespace gantry::app {

class AppContextHooks final : public agent::ContextHooks {
 public:
  /// memory may be null (MEMORY_ENABLED=false or an MCP memory backend): no hydration.
  AppContextHooks(store::Store& store, Provider& provider, session::Bounds bounds,
                  store::MemoryRepo* memory, session::FoldLimits fold = {});

  /// Turns past the bounds leave the history only once they are folded into the summary:
  /// when the fold fails (model error, timeout, cancel) the prompt keeps them and the next
  /// turn tries again.
  std::vector<ChatMessage> bound(int64_t session_id, std::vector<ChatMessage> history,
                                 std::string* summary, const CancelToken& cancel) override;
  std::string hydrate(const std::string& message) override;

 private:
  bool fold(int64_t session_id, const std::vector<ChatMessage>& dropped, const CancelToken& cancel);

  store::MessageRepo messages_;
  store::SessionRepo sessions_;
  Provider& provider_;
  session::Bounds bounds_;
  store::MemoryRepo* memory_;
  session::FoldLimits fold_limits_;
};

}  // namespace gantry::app
