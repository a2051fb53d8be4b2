// read_file and file_info.
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <ctime>

#include "common/utf8.h"
#include "workspace/file_checks.h"
#include "workspace/workspace_ops.h"

namespace gantry::workspace {
namespace {

Result<std::string> readAll(const RelPath& path, int fd, std::uint64_t max_bytes) {
  std::string data;
  char buffer[65536];
  for (;;) {
    const ssize_t n = ::read(fd, buffer, sizeof buffer);
    if (n == 0) return data;
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) return refused(path, "read failed");
    data.append(buffer, static_cast<std::size_t>(n));
    if (data.size() > max_bytes) return refused(path, "grew past the size cap while being read");
  }
}

/// Lines [offset, offset + limit) of text, each with its newline.
std::string sliceLines(const std::string& text, std::uint64_t offset,
                       std::optional<std::uint64_t> limit) {
  std::size_t start = 0;
  for (std::uint64_t i = 0; i < offset && start < text.size(); ++i) {
    const auto nl = text.find('\n', start);
    start = nl == std::string::npos ? text.size() : nl + 1;
  }
  if (!limit) return text.substr(start);
  std::size_t end = start;
  for (std::uint64_t i = 0; i < *limit && end < text.size(); ++i) {
    const auto nl = text.find('\n', end);
    end = nl == std::string::npos ? text.size() : nl + 1;
  }
  return text.substr(start, end - start);
}

std::string isoTime(std::time_t t) {
  char buffer[32];
  std::tm tm{};
  ::gmtime_r(&t, &tm);
  std::strftime(buffer, sizeof buffer, "%Y-%m-%dT%H:%M:%SZ", &tm);
  return buffer;
}

std::string octalMode(mode_t mode) {
  char buffer[8];
  std::snprintf(buffer, sizeof buffer, "%04o", static_cast<unsigned>(mode & 07777));
  return buffer;
}

/// The lstat of path: of the root itself, or of its last name inside its parent.
Result<struct stat> lstatBeneath(const ConfinedRoot& root, const RelPath& path,
                                 std::string* target) {
  struct stat st {};
  auto dir = path.isRoot() ? root.openAt(path, O_PATH | O_DIRECTORY) : root.openParent(path);
  if (!dir.isOk()) return dir.status();
  const char* name = path.isRoot() ? "" : path.leaf().c_str();
  if (::fstatat(dir->get(), name, &st, AT_SYMLINK_NOFOLLOW | AT_EMPTY_PATH) != 0) {
    return Status::error(describeOpenError(path, errno, root.resolver()));
  }
  if (S_ISLNK(st.st_mode)) {
    char buffer[4096];
    const ssize_t n = ::readlinkat(dir->get(), name, buffer, sizeof buffer);
    if (n > 0) *target = std::string(buffer, static_cast<std::size_t>(n));
  }
  return st;
}

}  // namespace

Result<std::string> readFile(const ConfinedRoot& root, const std::string& path_text,
                             std::uint64_t offset, std::optional<std::uint64_t> limit,
                             const Limits& limits) {
  auto path = checkPath(path_text);
  if (!path.isOk()) return path.status();
  auto file = openRegular(root, path.value(), O_RDONLY, limits.max_file_bytes);
  if (!file.isOk()) return file.status();
  auto data = readAll(path.value(), file->fd.get(), limits.max_file_bytes);
  if (!data.isOk()) return data.status();
  if (data->find('\0') != std::string::npos || !toolserver::isValidUtf8(data.value())) {
    return "path '" + toolserver::printable(path->text()) + "': binary file, " +
           std::to_string(data->size()) + " bytes (not UTF-8 text); contents not shown";
  }
  return sliceLines(data.value(), offset, limit);
}

Result<std::string> fileInfo(const ConfinedRoot& root, const std::string& path_text) {
  auto path = checkPath(path_text);
  if (!path.isOk()) return path.status();
  std::string target;
  auto st = lstatBeneath(root, path.value(), &target);
  if (!st.isOk()) return st.status();
  std::string out = "path: " + toolserver::printable(path->text()) + "\n";
  out += "type: " + typeName(st->st_mode) + "\n";
  out += "size: " + std::to_string(st->st_size) + "\n";
  out += "mode: " + octalMode(st->st_mode) + "\n";
  out += "links: " + std::to_string(st->st_nlink) + "\n";
  out += "modified: " + isoTime(st->st_mtime) + "\n";
  if (!target.empty()) out += "target: " + toolserver::printable(target) + "\n";
  return out;
}

}  // namespace gantry::workspace
