#pragma once
/// ContextHooks of the application: history bounds with the rolling summary (session/) and
/// memory hydration (memory/).

#include "agent/agent.h"
#include "gantry/provider.h"
#include "session/history_bounds.h"
#include "store/memory_repo.h"
#include "store/message_repo.h"
#include "store/session_repo.h"

namespace gantry::app {

class AppContextHooks final : public agent::ContextHooks {
 public:
  /// memory may be null (MEMORY_ENABLED=false or an MCP memory backend): no hydration.
  AppContextHooks(store::Store& store, Provider& provider, session::Bounds bounds,
                  store::MemoryRepo* memory);

  std::vector<ChatMessage> bound(int64_t session_id, std::vector<ChatMessage> history,
                                 std::string* summary) override;
  std::string hydrate(const std::string& message) override;

 private:
  void fold(int64_t session_id, const std::vector<ChatMessage>& dropped);

  store::MessageRepo messages_;
  store::SessionRepo sessions_;
  Provider& provider_;
  session::Bounds bounds_;
  store::MemoryRepo* memory_;
};

}  // namespace gantry::app
