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
  std::vector<std::string> candidates;  ///< real names close enough to be meant, if unresolved
  /// When the name is a tool of a server that is down: its ToolSource::outage() text (then
  /// no candidates).
  std::string outage;
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
  /// can be meant, else unresolved — with the outage of the server the name is prefixed
  /// with when that server is down, else with the candidates close enough to be meant.
  Resolution resolve(std::string_view requested) const;
  /// Every source, in the order added.
  const std::vector<ToolSource*>& sources() const { return sources_; }

 private:
  /// The outage of a down source whose prefix, then separator, begins the (folded) name; "".
  std::string outageOf(std::string_view requested, std::string_view separator) const;

  std::vector<ToolSource*> sources_;
};

}  // namespace gantry::tools
