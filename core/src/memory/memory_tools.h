#pragma once
/// The built-in memory tools (DESIGN 6): memory_store, memory_recall, memory_forget, offered
/// to the agent loop as a ToolSource. No auto-save: rows are written only when the model
/// calls memory_store.

#include <chrono>
#include <string>
#include <vector>

#include "store/memory_repo.h"
#include "tools/tool_source.h"

namespace gantry::memory {

/// Tunables of the memory tools.
struct MemoryToolOptions {
  std::chrono::hours episode_ttl{24 * 30};  ///< episodes expire; other kinds never do
  int recall_limit = 10;                    ///< rows returned by memory_recall
  int forget_limit = 10;                    ///< rows memory_forget may remove by query
  std::size_t max_subject_chars = 200;
  std::size_t max_content_chars = 4000;
};

/// The expiry time of a new row of kind at now_ms: now + episode_ttl for episodes, 0 (never)
/// for facts, preferences, persons and insights.
int64_t expiryFor(std::string_view kind, int64_t now_ms, const MemoryToolOptions& options);

/// The three memory tools' schemas, byte-identical on every call. MEMORY_BACKEND=mcp:NAME
/// publishes these same schemas, so the prompt does not change with the backend.
std::vector<ToolSchema> memoryToolSchemas();

/// Thread-safe (the repository serialises access). The repository must outlive this object.
class MemoryTools final : public tools::ToolSource {
 public:
  explicit MemoryTools(store::MemoryRepo& repo, MemoryToolOptions options = {});

  /// memoryToolSchemas().
  ToolList tools() const override;
  /// Runs one memory tool. Malformed JSON, a missing or wrong-typed argument, an unknown
  /// kind or an unknown tool name come back as ok=false with a text the model can act on.
  tools::ToolResult call(const std::string& name, const std::string& arguments_json,
                         const tools::CallContext& context) override;

 private:
  tools::ToolResult store(const std::string& arguments_json);
  tools::ToolResult recall(const std::string& arguments_json);
  tools::ToolResult forget(const std::string& arguments_json);

  store::MemoryRepo& repo_;
  MemoryToolOptions options_;
};

}  // namespace gantry::memory
