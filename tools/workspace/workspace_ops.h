#pragma once
/// The operations behind gantry-workspace's tools, each confined beneath a ConfinedRoot.
/// Every failure is a Status naming the path. Only regular files are read or written:
/// directories are listed; device files, FIFOs and sockets are refused; a file with more
/// than one hard link is refused (its other name may be outside the root).

#include <cstdint>
#include <optional>
#include <string>

#include "gantry/status.h"
#include "workspace/confined_root.h"

namespace gantry::workspace {

/// Caps applied to every call.
struct Limits {
  /// Larger files are refused, not cut.
  std::uint64_t max_file_bytes = std::uint64_t{1024} * 1024;
  std::uint64_t max_list = 1000;   ///< entries listed or search hits returned
  std::uint64_t max_scan = 10000;  ///< entries a search visits
  /// --allow-exec-files: names that run code (runsCode) may be written and moved to.
  bool exec_files = false;
};

/// Lines [offset, offset + limit) of a UTF-8 text file (offset counts from 0). A file that is
/// not UTF-8 text is described instead of dumped.
Result<std::string> readFile(const ConfinedRoot& root, const std::string& path,
                             std::uint64_t offset, std::optional<std::uint64_t> limit,
                             const Limits& limits);

/// One line per entry, sorted, directories with a trailing '/', symlinks with '@'; nested
/// to depth (1..3) with two spaces of indent per level.
Result<std::string> listDir(const ConfinedRoot& root, const std::string& path, int depth,
                            const Limits& limits);

/// Files under path whose name matches glob (fnmatch; empty = any) and, when text is not
/// empty, the lines that contain text ("file:line: text").
Result<std::string> searchFiles(const ConfinedRoot& root, const std::string& path,
                                const std::string& glob, const std::string& text,
                                const Limits& limits);

/// Writes, appends and moves refuse a destination that runs code (runsCode) unless
/// limits.exec_files.

/// Type, size, mode, link count and modification time of path (a symlink is described,
/// not followed).
Result<std::string> fileInfo(const ConfinedRoot& root, const std::string& path);

/// Creates or replaces path with content atomically (a temporary file renamed over it). A
/// replaced file keeps its read and write bits, never an execute bit.
Result<std::string> writeFile(const ConfinedRoot& root, const std::string& path,
                              const std::string& content, const Limits& limits);

/// Appends content to path, creating it when missing.
Result<std::string> appendFile(const ConfinedRoot& root, const std::string& path,
                               const std::string& content, const Limits& limits);

/// Creates the directory path and any missing parents.
Result<std::string> makeDir(const ConfinedRoot& root, const std::string& path);

/// Renames from to to (both beneath the root); refuses to replace an existing to.
Result<std::string> move(const ConfinedRoot& root, const std::string& from, const std::string& to,
                         const Limits& limits);

/// Removes a file, a symlink (not its target) or an empty directory.
Result<std::string> remove(const ConfinedRoot& root, const std::string& path);

}  // namespace gantry::workspace
