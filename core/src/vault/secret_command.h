#pragma once
/// `gantry secret set NAME | list | rm NAME`: the operator's side of the vault. Works while
/// an instance runs (the file is replaced atomically; the instance reads it at boot and on
/// SIGHUP).

#include <iosfwd>
#include <string>
#include <vector>

#include "config/config.h"

namespace gantry::vault {

/// Runs one subcommand. `set` reads the value from in (no echo when in is a terminal; one
/// trailing newline is dropped). Exit codes: 0 done, 1 failure, 2 usage error.
int secretCommand(const std::vector<std::string>& args, const config::EnvLookup& env,
                  std::istream& in, std::ostream& out, std::ostream& err);

}  // namespace gantry::vault
