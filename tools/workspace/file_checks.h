#pragma once
/// Checks shared by the workspace operations: what kind of file a path is, and opening a
/// regular file with every refusal (type, hard links, size, a swap during the call).

#include <sys/stat.h>

#include <cstdint>
#include <optional>
#include <string>

#include "gantry/status.h"
#include "workspace/confined_root.h"

namespace gantry::workspace {

/// "file", "directory", "symlink", "FIFO", "socket", "character device", "block device".
std::string typeName(mode_t mode);

/// An open regular file and its stat.
struct OpenFile {
  Fd fd;
  struct stat st {};
};

/// Opens path (beneath root) as a regular file with flags. Refuses anything else, a file
/// with more than one hard link, one larger than max_bytes, and a file that changed between
/// the check and the open.
Result<OpenFile> openRegular(const ConfinedRoot& root, const RelPath& path, int flags,
                             std::uint64_t max_bytes);

/// "path 'x': why".
Status refused(const RelPath& path, const std::string& why);

/// Why writing path would let its content run as code the next time a person or a tool
/// works in the folder (a git hook or config, .envrc, a shell or session start-up file, ssh
/// keys), or nullopt. Matched on the names, whatever the file's content.
std::optional<std::string> runsCode(const RelPath& path);

/// Checks path text and opens it beneath root as a directory for reading entries.
Result<Fd> openDirectory(const ConfinedRoot& root, const RelPath& path);

}  // namespace gantry::workspace
