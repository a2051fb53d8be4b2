#pragma once
/// The lexical check of a path a tool call names, before any file system access. Pure.
/// The kernel check (confined_root.h) is the real boundary; this one gives a clear error
/// early and keeps names that cannot be shown (NUL, newlines, invalid UTF-8) out.

#include <string>
#include <vector>

#include "gantry/status.h"

namespace gantry::workspace {

/// A checked relative path: its components, none empty, "." or "..".
struct RelPath {
  std::vector<std::string> parts;

  bool isRoot() const { return parts.empty(); }
  /// The parts joined with '/', or "." for the root.
  std::string text() const;
  /// All parts but the last (the root's parent is refused before this is called).
  RelPath parent() const;
  const std::string& leaf() const { return parts.back(); }
};

/// Checks a path given relative to the workspace root ("" and "." are the root). Refuses
/// absolute paths, any ".." component, NUL, control characters and invalid UTF-8, with an
/// error naming the path.
Result<RelPath> checkPath(const std::string& path);

/// Joins a checked path and one more name (a directory entry) into a new checked path.
Result<RelPath> child(const RelPath& dir, const std::string& name);

}  // namespace gantry::workspace
