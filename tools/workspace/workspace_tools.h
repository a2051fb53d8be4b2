#pragma once
/// The MCP tools of gantry-workspace: read_file, list_dir, search_files and file_info always;
/// write_file, append_file, make_dir and move with --write; delete with --delete.

#include "common/stdio_server.h"
#include "workspace/confined_root.h"
#include "workspace/workspace_ops.h"

namespace gantry::workspace {

/// What the owner granted on the command line.
struct Grants {
  bool write = false;
  bool del = false;
};

/// Adds the granted tools to server. root and limits must outlive it.
void addTools(toolserver::StdioServer& server, const ConfinedRoot& root, const Limits& limits,
              const Grants& grants);

}  // namespace gantry::workspace
