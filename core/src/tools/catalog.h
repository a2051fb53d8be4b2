#pragma once
/// Catalog: every ToolSource of the process behind one lookup, with name repair for models
/// that misspell tool names (DESIGN 4.1).

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "gantry/message.h"
#include "tools/tool_source.h"

namespace gantry::tools {

/// The outcome of looking up a name the model wrote.
struct Resolution {
  ToolSource* source = nullptr;         ///< null when no tool could be meant
  std::string name;                     ///< the published name to call
  bool repaired = false;                ///< name differed from what the model wrote
  std::vector<std::string> candidates;  ///< closest real names when unresolved
};

/// Not thread-safe to add(); schemas() and resolve() may be called concurrently afterwards.
class Catalog {
 public:
  /// Adds a source (not owned; must outlive the catalog).
  void add(ToolSource* source);
  /// Published schemas of every source, in a stable order (byte-identical across turns
  /// while nothing changed); a new list each call.
  ToolList schemas() const;
  /// Finds the tool a model-written name means: exact, else repaired when exactly one tool
  /// can be meant, else unresolved with the closest candidates.
  Resolution resolve(std::string_view requested) const;
  /// Every source, in the order added.
  const std::vector<ToolSource*>& sources() const { return sources_; }

 private:
  std::vector<ToolSource*> sources_;
};

}  // namespace gantry::tools
