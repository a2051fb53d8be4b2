#pragma once
/// ContextHooks of the application: history bounds with the rolling summary (session/),
/// memory hydration (memory/) and the time in CRON_TZ (cron/).

#include "agent/agent.h"
#include "cron/cron_options.h"
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
  /// zone is CRON_TZ, the zone the `[now]` line is told in.
  AppContextHooks(store::Store& store, Provider& provider, session::Bounds bounds,
                  store::MemoryRepo* memory, cron::Zone zone, session::FoldLimits fold = {});

  /// Turns past the bounds leave the history only once they are folded into the summary:
  /// when the fold fails (model error, timeout, cancel) the prompt keeps them and the next
  /// turn tries again.
  std::vector<ChatMessage> bound(int64_t session_id, std::vector<ChatMessage> history,
                                 std::string* summary, const CancelToken& cancel) override;
  std::string hydrate(const std::string& message) override;
  std::string now() override;

 private:
  bool fold(int64_t session_id, const std::vector<ChatMessage>& dropped, const CancelToken& cancel);

  store::MessageRepo messages_;
  store::SessionRepo sessions_;
  Provider& provider_;
  session::Bounds bounds_;
  store::MemoryRepo* memory_;
  cron::Zone zone_;
  session::FoldLimits fold_limits_;
};

}  // namespace gantry::app
