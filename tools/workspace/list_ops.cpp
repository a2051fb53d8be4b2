// list_dir and search_files: bounded walks that open every directory beneath the root.
#include <dirent.h>
#include <fcntl.h>
#include <fnmatch.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <vector>

#include "common/utf8.h"
#include "workspace/file_checks.h"
#include "workspace/workspace_ops.h"

namespace gantry::workspace {
namespace {

using toolserver::printable;

constexpr int kMaxListDepth = 3;
constexpr int kMaxSearchDepth = 8;
constexpr std::size_t kMaxHitLine = 200;

struct Entry {
  std::string name;
  struct stat st {};
};

/// The entries of the directory path (beneath root), sorted by name, without . and ..
Result<std::vector<Entry>> readEntries(const ConfinedRoot& root, const RelPath& path) {
  auto fd = openDirectory(root, path);
  if (!fd.isOk()) return fd.status();
  DIR* dir = ::fdopendir(fd->get());
  if (dir == nullptr) return refused(path, "cannot be listed");
  fd->release();  // owned by dir now
  std::vector<Entry> entries;
  while (const dirent* d = ::readdir(dir)) {
    const std::string name = d->d_name;
    if (name == "." || name == "..") continue;
    Entry entry{name, {}};
    ::fstatat(::dirfd(dir), d->d_name, &entry.st, AT_SYMLINK_NOFOLLOW);
    entries.push_back(std::move(entry));
  }
  ::closedir(dir);
  std::sort(entries.begin(), entries.end(),
            [](const Entry& a, const Entry& b) { return a.name < b.name; });
  return entries;
}

std::string describeEntry(const Entry& entry) {
  const auto& name = printable(entry.name);
  if (S_ISDIR(entry.st.st_mode)) return name + "/";
  if (S_ISLNK(entry.st.st_mode)) return name + "@";
  if (S_ISREG(entry.st.st_mode)) return name + " (" + std::to_string(entry.st.st_size) + " bytes)";
  return name + " (" + typeName(entry.st.st_mode) + ")";
}

struct Walk {
  Walk(const ConfinedRoot& r, const Limits& l) : root(r), limits(l) {}
  const ConfinedRoot& root;
  const Limits& limits;
  std::string out;
  std::uint64_t emitted = 0;
  std::uint64_t scanned = 0;
  bool truncated = false;

  bool full() {
    if (emitted >= limits.max_list || scanned >= limits.max_scan) truncated = true;
    return truncated;
  }
  void emit(const std::string& line) {
    out += line + "\n";
    ++emitted;
  }
};

Status listInto(Walk& walk, const RelPath& path, int depth, int level) {
  auto entries = readEntries(walk.root, path);
  if (!entries.isOk()) return entries.status();
  for (const auto& entry : entries.value()) {
    if (walk.full()) return Status::ok();
    walk.emit(std::string(2 * static_cast<std::size_t>(level), ' ') + describeEntry(entry));
    if (!S_ISDIR(entry.st.st_mode) || level + 1 >= depth) continue;
    auto sub = child(path, entry.name);
    if (sub.isOk()) listInto(walk, sub.value(), depth, level + 1);
  }
  return Status::ok();
}

/// The matching lines of one file, "file:line: text"; files that are not small UTF-8
/// regular files are skipped.
void grepFile(Walk& walk, const RelPath& path, const std::string& text) {
  auto file = openRegular(walk.root, path, O_RDONLY, walk.limits.max_file_bytes);
  if (!file.isOk()) return;
  std::string data(static_cast<std::size_t>(file->st.st_size), '\0');
  const ssize_t n = ::read(file->fd.get(), data.data(), data.size());
  if (n < 0) return;
  data.resize(static_cast<std::size_t>(n));
  if (data.find('\0') != std::string::npos || !toolserver::isValidUtf8(data)) return;
  std::size_t start = 0;
  for (std::size_t line = 1; start < data.size() && !walk.full(); ++line) {
    auto end = data.find('\n', start);
    if (end == std::string::npos) end = data.size();
    const std::string row = data.substr(start, end - start);
    if (row.find(text) != std::string::npos) {
      walk.emit(printable(path.text()) + ":" + std::to_string(line) + ": " +
                printable(row.substr(0, kMaxHitLine)));
    }
    start = end + 1;
  }
}

void searchInto(Walk& walk, const RelPath& path, const std::string& glob, const std::string& text,
                int level) {
  auto entries = readEntries(walk.root, path);
  if (!entries.isOk()) return;
  for (const auto& entry : entries.value()) {
    if (walk.full()) return;
    ++walk.scanned;
    auto sub = child(path, entry.name);
    if (!sub.isOk()) continue;
    if (S_ISDIR(entry.st.st_mode) && level + 1 < kMaxSearchDepth) {
      searchInto(walk, sub.value(), glob, text, level + 1);
      continue;
    }
    if (!S_ISREG(entry.st.st_mode)) continue;
    if (!glob.empty() && ::fnmatch(glob.c_str(), entry.name.c_str(), 0) != 0) continue;
    if (text.empty()) {
      walk.emit(printable(sub->text()));
    } else {
      grepFile(walk, sub.value(), text);
    }
  }
}

std::string finish(Walk& walk, const std::string& empty_note) {
  if (walk.out.empty()) return empty_note;
  if (walk.truncated)
    walk.out += "(truncated: --max-list " + std::to_string(walk.limits.max_list) + ")\n";
  return walk.out;
}

}  // namespace

Result<std::string> listDir(const ConfinedRoot& root, const std::string& path_text, int depth,
                            const Limits& limits) {
  auto path = checkPath(path_text);
  if (!path.isOk()) return path.status();
  if (depth < 1 || depth > kMaxListDepth) {
    return refused(path.value(), "depth must be between 1 and " + std::to_string(kMaxListDepth));
  }
  Walk walk{root, limits};
  if (auto status = listInto(walk, path.value(), depth, 0); !status.isOk()) return status;
  return finish(walk, "(empty directory)");
}

Result<std::string> searchFiles(const ConfinedRoot& root, const std::string& path_text,
                                const std::string& glob, const std::string& text,
                                const Limits& limits) {
  auto path = checkPath(path_text);
  if (!path.isOk()) return path.status();
  if (glob.empty() && text.empty())
    return refused(path.value(), "give a name glob, a text, or both");
  if (auto dir = openDirectory(root, path.value()); !dir.isOk()) return dir.status();
  Walk walk{root, limits};
  searchInto(walk, path.value(), glob, text, 0);
  return finish(walk, "(no matches)");
}

}  // namespace gantry::workspace
