#pragma once
/// Persona: PERSONA_DIR/*.md concatenated in a fixed order — IDENTITY.md, SOUL.md, USER.md,
/// TOOLS.md, then every other *.md by name.

#include <string>
#include <vector>

#include "gantry/status.h"

namespace gantry::persona {

struct Persona {
  std::string text;                ///< the files joined, each under a `# file` marker line
  std::vector<std::string> files;  ///< file names in the order used
  std::string user;                ///< USER.md alone (outranks memory)
};

/// Reads the persona. A missing, unreadable or empty directory is an error naming it.
Result<Persona> load(const std::string& dir);

}  // namespace gantry::persona
