#pragma once
/// Publication: which tool schemas each chat's model calls carry (TOOL_PUBLISH). Eager
/// publishes the whole catalog. Lazy publishes the built-ins (mcp_enable among them) and the
/// MCP servers the chat has enabled, each held for TOOL_ENABLE_HOLD after its last use; the
/// system prompt lists the servers that can be enabled. Enabled sets live in the kv table,
/// so a restart keeps them.

#include <chrono>
#include <cstdint>
#include <functional>
#include <mutex>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "gantry/message.h"
#include "store/store.h"
#include "tools/catalog.h"

namespace gantry::tools {

enum class PublishMode { kEager, kLazy };

/// TOOL_PUBLISH unset: lazy when the MCP schemas are estimated above eager_max_tokens.
PublishMode defaultPublishMode(std::size_t mcp_est_tokens, std::size_t eager_max_tokens);

struct PublishOptions {
  PublishMode mode = PublishMode::kEager;
  std::chrono::milliseconds hold = std::chrono::hours(6);  ///< TOOL_ENABLE_HOLD
  std::function<int64_t()> clock;                          ///< ms since epoch; unset: now
  /// TOOL_SCHEMA_MAX_TOKENS (0: no cap): what any call publishes is estimated at most this.
  /// The built-ins always are; MCP servers are admitted whole while they fit — eager the
  /// servers published before first, then the others in catalog order; lazy in the order the
  /// chat enabled them — and the rest is withheld (logged), so a server that comes up late
  /// can neither take a call over the cap nor push out what was published.
  std::size_t max_tokens = 0;
};

/// One line of the lazy listing: an MCP server that can be enabled.
struct ServerListing {
  std::string name;
  std::size_t tools = 0;
  std::size_t est_tokens = 0;  ///< estimated (chars/4) tokens of its schemas
  std::string summary;
};

/// Thread-safe. catalog and store are not owned and outlive it.
class Publication {
 public:
  Publication(Catalog& catalog, store::Store& store, PublishOptions options);

  PublishMode mode() const { return options_.mode; }

  /// The start of a turn: the chat's servers whose hold is over stop being published. Only
  /// here, so a turn's requests never lose a schema mid-turn.
  void beginTurn(const std::string& chat_id);

  /// What the chat's next model call publishes. Lazy: the built-ins sorted by name, then
  /// each enabled server's tools (sorted) in the order the servers were enabled, so
  /// enabling one only appends and what was published before stays byte-identical. Never
  /// over max_tokens past the built-ins.
  /// The same list while none of that changes.
  ToolList schemas(const std::string& chat_id) const;

  /// Boot: what a call publishes at start — eager everything up now, lazy the built-ins —
  /// must fit max_tokens; the error names TOOL_SCHEMA_MAX_TOKENS (the caller exits 1).
  Status checkAtStart() const;

  /// Estimated tokens (chars/4) of schemas(chat_id).
  std::size_t publishedTokens(const std::string& chat_id) const;

  /// True when server's tools are in schemas(chat_id).
  bool published(const std::string& chat_id, const std::string& server) const;

  /// Why enabling server for the chat would break max_tokens, or nullopt when it fits (or
  /// is published already).
  std::optional<std::string> overCap(const std::string& chat_id, const std::string& server) const;

  /// Enables server for the chat (or renews its hold). False when no MCP server of the
  /// catalog has that name.
  bool enable(const std::string& chat_id, const std::string& server);

  /// A call resolved to source: renews its server's hold and, lazy, enables a server not
  /// yet published (the model called it by name: one repair, logged). True when it enabled.
  bool noteCall(const std::string& chat_id, const ToolSource& source);

  /// Every MCP server of the catalog, in catalog order.
  std::vector<ServerListing> servers() const;

  /// The system prompt's listing of the servers to enable; "" when eager.
  std::string listingBlock() const;

 private:
  struct Held {
    std::string server;
    int64_t until_ms = 0;
  };
  std::vector<Held> load(const std::string& chat_id) const;
  void save(const std::string& chat_id, const std::vector<Held>& held) const;
  bool renew(const std::string& chat_id, const std::string& server);
  int64_t now() const;
  /// What schemas() is composed from: each source's list (in catalog order), and the
  /// chat's enabled servers (lazy) or the servers admitted so far (eager).
  struct Inputs {
    std::vector<ToolList> lists;
    std::vector<std::string> held;
    std::vector<const ToolSource*> admitted;
    bool operator==(const Inputs&) const = default;
  };
  Inputs inputs(const std::string& chat_id) const;
  std::vector<ToolSchema> compose(const Inputs& in) const;
  /// Appends tools, source's list, to out (tokens counted in *tokens) when they fit the
  /// cap, else notes the server as withheld.
  void admit(const ToolSource& source, const std::vector<ToolSchema>& tools,
             std::vector<ToolSchema>& out, std::size_t* tokens) const;
  void noteWithheld(const std::string& server, std::size_t tokens) const;
  /// Eager: the servers in the order they are admitted in, those admitted so far first.
  std::vector<const ToolSource*> eagerOrder(std::vector<const ToolSource*> admitted) const;

  Catalog& catalog_;
  store::Store& store_;
  PublishOptions options_;
  mutable std::mutex mutex_;  ///< one read-modify-write of a chat's set at a time
  mutable std::mutex withheld_mutex_;
  mutable std::set<std::string> withheld_;           ///< servers logged as over the cap
  mutable std::vector<const ToolSource*> admitted_;  ///< eager: published so far, in order
  mutable std::mutex cache_mutex_;
  mutable Inputs cached_inputs_;  ///< what cached_ was composed from
  mutable ToolList cached_;
};

}  // namespace gantry::tools
