#pragma once
/// The request of a consolidation pass: instructions with the reply schema, and the bounded
/// input (persona, existing memories, episodes, summaries). Pure; no I/O.

#include <string>
#include <vector>

#include "gantry/message.h"
#include "memory/consolidator.h"

namespace gantry::memory {

/// The request messages (system instructions, user input) within options.max_input_chars.
/// included_episodes receives the ids of the episodes that fit.
std::vector<ChatMessage> consolidationRequest(const ConsolidationInput& input,
                                              const ConsolidatorOptions& options,
                                              std::vector<int64_t>* included_episodes);

}  // namespace gantry::memory
