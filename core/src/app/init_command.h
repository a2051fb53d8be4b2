#pragma once
/// `gantry init`: scaffolds the files one process needs (persona, manifest, env file), either
/// in a working directory or as a systemd instance under /etc/gantry.

#include <ostream>
#include <string>
#include <vector>

namespace gantry::app {

/// Runs `gantry init` with the words after `init`:
///   `[DIR]`             DIR/persona/*.md, DIR/mcp.toml, DIR/gantry.env (0600), DIR/data/
///   `--instance NAME`   $GANTRY_ETC_DIR (default /etc/gantry)/NAME.env (0600),
///                       NAME/persona/*.md and NAME/mcp.toml for gantry@NAME.service
///   `--help`            usage on out
/// Never overwrites: when any target file exists, names them on err and writes nothing.
/// Files under the etc root are given the `gantry` group when it exists (best effort).
/// Returns the exit code: 0 done, 1 existing files or a write failure, 2 usage error.
/// Calling thread: any; not thread-safe against concurrent inits of the same paths.
int initCommand(const std::vector<std::string>& args, std::ostream& out, std::ostream& err);

}  // namespace gantry::app
