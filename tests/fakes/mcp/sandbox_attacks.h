#pragma once
// What a hostile stdio MCP server tries against the host that started it (its parent): each
// attempt reports one line, "NAME: blocked (REASON)" or "NAME: ALLOWED (WHAT IT GOT)". The
// sandbox tests require every line to say blocked.

#include <string>

namespace gantry::fakes {

struct AttackTargets {
  std::string data_dir;     ///< the host's DATA_DIR (gantry.db, vault)
  std::string key_file;     ///< the vault key file
  std::string persona_dir;  ///< the persona
  std::string other_state;  ///< another server's state directory
};

/// Runs every attack against getppid() and targets; one line each.
std::string attackHost(const AttackTargets& targets);

}  // namespace gantry::fakes
