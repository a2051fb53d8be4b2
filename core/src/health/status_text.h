#pragma once
/// The texts of /status and /tools (DESIGN 4.3). Token counts are estimates (chars/4) and
/// say so.

#include <cstdint>
#include <string>

#include "config/config.h"
#include "cron/cron_options.h"
#include "gantry/provider.h"
#include "gantry/text/duration.h"
#include "store/store.h"
#include "tools/catalog.h"
#include "tools/publication.h"

namespace gantry::health {

/// "3h 12m", "45s" (gantry/text/duration.h).
using text::formatDuration;

/// Non-owning views of what the status reads; all outlive the chat service.
struct StatusInputs {
  const config::Config* config;
  store::Store* store;
  Provider* provider;
  tools::Catalog* catalog;
  const cron::Zone* zone;  ///< null when cron is off
  int64_t started_ms;
  /// What each chat's calls publish; null: the whole catalog is.
  const tools::Publication* publication = nullptr;
};

std::string statusText(const StatusInputs& in, const std::string& chat_id);
/// The tools the chat's next call publishes ("N published of M"), then the servers it could
/// enable.
std::string toolsText(const StatusInputs& in, const std::string& chat_id);

/// Whether stdio MCP servers run sandboxed (MCP_SANDBOX), for /status and `gantry status`.
std::string sandboxLine(const config::Config& config);

}  // namespace gantry::health
