#pragma once
/// Each chat's standing prompt as estimated part by part when its last turn ended, so
/// `gantry tokens` (another process) tells what /tokens tells.

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "store/store.h"

namespace gantry::store {

/// One part of a standing prompt: a label, its estimated tokens (chars/4) and a detail such
/// as "12 messages".
struct PromptPart {
  std::string part;
  std::size_t est_tokens = 0;
  std::string detail;
};

struct StoredBudget {
  std::string chat_id;
  int64_t at = 0;  ///< when it was recorded
  std::vector<PromptPart> parts;
};

/// Thread-safe. MessageRepo::recordTurn records them, with the turn that ends.
class PromptBudgetRepo {
 public:
  explicit PromptBudgetRepo(Store& store) : store_(store) {}
  /// The chat's parts; chat_id "" means the chat recorded last. nullopt when none is recorded.
  Result<std::optional<StoredBudget>> load(const std::string& chat_id);

 private:
  Store& store_;
};

}  // namespace gantry::store
