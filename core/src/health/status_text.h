#pragma once
/// The texts of /status and /tools (DESIGN 4.3). Token counts are estimates (chars/4) and
/// say so.

#include <cstdint>
#include <string>

#include "config/config.h"
#include "cron/cron_options.h"
#include "gantry/provider.h"
#include "store/store.h"
#include "tools/catalog.h"

namespace gantry::health {

/// Non-owning views of what the status reads; all outlive the chat service.
struct StatusInputs {
  const config::Config* config;
  store::Store* store;
  Provider* provider;
  tools::Catalog* catalog;
  const cron::Zone* zone;  ///< null when cron is off
  int64_t started_ms;
};

std::string statusText(const StatusInputs& in, const std::string& chat_id);
std::string toolsText(const StatusInputs& in);

/// "3h 12m", "45s".
std::string formatDuration(int64_t ms);

}  // namespace gantry::health
