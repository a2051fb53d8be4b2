// write_file, append_file, make_dir, move, delete: every change is an *at() call on a
// parent directory opened beneath the root, so the name changed is always inside it.
#include <fcntl.h>
#include <stdio.h>
#include <sys/stat.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <cstring>

#include "common/utf8.h"
#include "workspace/file_checks.h"
#include "workspace/workspace_ops.h"

namespace gantry::workspace {
namespace {

Status failed(const RelPath& path, const std::string& what) {
  return refused(path, what + ": " + std::strerror(errno));
}

Result<RelPath> changeablePath(const std::string& text) {
  auto path = checkPath(text);
  if (!path.isOk()) return path.status();
  if (path->isRoot()) return refused(path.value(), "the workspace root itself cannot be changed");
  return path;
}

/// A path whose content may be written: changeable, and not one that runs code unless the
/// owner allowed those.
Result<RelPath> writablePath(const std::string& text, const Limits& limits) {
  auto path = changeablePath(text);
  if (!path.isOk() || limits.exec_files) return path;
  if (auto why = runsCode(path.value())) {
    return refused(path.value(),
                   *why + "; refused (gantry-workspace --allow-exec-files allows it)");
  }
  return path;
}

Status checkContent(const RelPath& path, const std::string& content, std::uint64_t total,
                    const Limits& limits) {
  if (!toolserver::isValidUtf8(content)) return refused(path, "content is not valid UTF-8 text");
  if (total > limits.max_file_bytes) {
    return refused(path, "would be " + std::to_string(total) + " bytes, over the " +
                             std::to_string(limits.max_file_bytes) +
                             "-byte cap (--max-file-bytes)");
  }
  return Status::ok();
}

bool writeAll(int fd, const std::string& data) {
  std::size_t done = 0;
  while (done < data.size()) {
    const ssize_t n = ::write(fd, data.data() + done, data.size() - done);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return false;
    done += static_cast<std::size_t>(n);
  }
  return true;
}

/// Refuses to replace anything but a regular file (or a symlink, which a rename replaces
/// without following).
Status checkReplaceable(int dir, const RelPath& path, mode_t* mode) {
  struct stat st {};
  if (::fstatat(dir, path.leaf().c_str(), &st, AT_SYMLINK_NOFOLLOW) != 0) return Status::ok();
  if (!S_ISREG(st.st_mode) && !S_ISLNK(st.st_mode)) {
    return refused(path, "is a " + typeName(st.st_mode) + "; only files are replaced");
  }
  if (S_ISREG(st.st_mode)) *mode = st.st_mode & 0666;  // a replacement is never made executable
  return Status::ok();
}

std::string temporaryName() {
  static std::atomic<unsigned> counter{0};
  return ".gantry-write-" + std::to_string(::getpid()) + "-" + std::to_string(counter++);
}

Status writeTemporary(int dir, const RelPath& path, const std::string& tmp,
                      const std::string& content, mode_t mode) {
  Fd fd(::openat(dir, tmp.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, mode));
  if (fd.get() < 0) return failed(path, "cannot create a temporary file");
  if (!writeAll(fd.get(), content) || ::fsync(fd.get()) != 0) {
    ::unlinkat(dir, tmp.c_str(), 0);
    return failed(path, "write failed");
  }
  return Status::ok();
}

Result<std::string> appendNew(const ConfinedRoot& root, const RelPath& path,
                              const std::string& content) {
  auto dir = root.openParent(path);
  if (!dir.isOk()) return dir.status();
  Fd fd(::openat(dir->get(), path.leaf().c_str(),
                 O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0644));
  if (fd.get() < 0) return failed(path, "cannot create");
  if (!writeAll(fd.get(), content)) return failed(path, "write failed");
  return "created " + path.text() + " (" + std::to_string(content.size()) + " bytes)";
}

Status makeOne(const ConfinedRoot& root, const RelPath& path) {
  auto dir = root.openParent(path);
  if (!dir.isOk()) return dir.status();
  if (::mkdirat(dir->get(), path.leaf().c_str(), 0755) == 0 || errno == EEXIST) {
    struct stat st {};
    ::fstatat(dir->get(), path.leaf().c_str(), &st, AT_SYMLINK_NOFOLLOW);
    return S_ISDIR(st.st_mode) ? Status::ok() : refused(path, "exists and is not a directory");
  }
  return failed(path, "cannot create the directory");
}

}  // namespace

Result<std::string> writeFile(const ConfinedRoot& root, const std::string& path_text,
                              const std::string& content, const Limits& limits) {
  auto path = writablePath(path_text, limits);
  if (!path.isOk()) return path.status();
  if (auto s = checkContent(path.value(), content, content.size(), limits); !s.isOk()) return s;
  auto dir = root.openParent(path.value());
  if (!dir.isOk()) return dir.status();
  mode_t mode = 0644;
  if (auto s = checkReplaceable(dir->get(), path.value(), &mode); !s.isOk()) return s;
  const std::string tmp = temporaryName();
  if (auto s = writeTemporary(dir->get(), path.value(), tmp, content, mode); !s.isOk()) return s;
  if (::renameat(dir->get(), tmp.c_str(), dir->get(), path->leaf().c_str()) != 0) {
    const Status status = failed(path.value(), "cannot replace");
    ::unlinkat(dir->get(), tmp.c_str(), 0);
    return status;
  }
  return "wrote " + path->text() + " (" + std::to_string(content.size()) + " bytes)";
}

Result<std::string> appendFile(const ConfinedRoot& root, const std::string& path_text,
                               const std::string& content, const Limits& limits) {
  auto path = writablePath(path_text, limits);
  if (!path.isOk()) return path.status();
  if (auto s = checkContent(path.value(), content, content.size(), limits); !s.isOk()) return s;
  auto file = openRegular(root, path.value(), O_WRONLY | O_APPEND, limits.max_file_bytes);
  if (!file.isOk() && file.status().message().find("does not exist") != std::string::npos) {
    return appendNew(root, path.value(), content);
  }
  if (!file.isOk()) return file.status();
  const auto total = static_cast<std::uint64_t>(file->st.st_size) + content.size();
  if (auto s = checkContent(path.value(), content, total, limits); !s.isOk()) return s;
  if (!writeAll(file->fd.get(), content)) return failed(path.value(), "write failed");
  return "appended " + std::to_string(content.size()) + " bytes to " + path->text();
}

Result<std::string> makeDir(const ConfinedRoot& root, const std::string& path_text) {
  auto path = changeablePath(path_text);
  if (!path.isOk()) return path.status();
  RelPath prefix;
  for (const auto& part : path->parts) {
    prefix.parts.push_back(part);
    if (auto s = makeOne(root, prefix); !s.isOk()) return s;
  }
  return "created directory " + path->text();
}

Result<std::string> move(const ConfinedRoot& root, const std::string& from_text,
                         const std::string& to_text, const Limits& limits) {
  auto from = changeablePath(from_text);
  if (!from.isOk()) return from.status();
  auto to = writablePath(to_text, limits);
  if (!to.isOk()) return to.status();
  auto from_dir = root.openParent(from.value());
  if (!from_dir.isOk()) return from_dir.status();
  auto to_dir = root.openParent(to.value());
  if (!to_dir.isOk()) return to_dir.status();
  if (::renameat2(from_dir->get(), from->leaf().c_str(), to_dir->get(), to->leaf().c_str(),
                  RENAME_NOREPLACE) != 0) {
    return errno == EEXIST ? refused(to.value(), "already exists; move does not replace")
                           : failed(from.value(), "cannot move to '" + to->text() + "'");
  }
  return "moved " + from->text() + " to " + to->text();
}

Result<std::string> remove(const ConfinedRoot& root, const std::string& path_text) {
  auto path = changeablePath(path_text);
  if (!path.isOk()) return path.status();
  auto dir = root.openParent(path.value());
  if (!dir.isOk()) return dir.status();
  struct stat st {};
  if (::fstatat(dir->get(), path->leaf().c_str(), &st, AT_SYMLINK_NOFOLLOW) != 0) {
    return Status::error(describeOpenError(path.value(), errno, root.resolver()));
  }
  const int flags = S_ISDIR(st.st_mode) ? AT_REMOVEDIR : 0;
  if (::unlinkat(dir->get(), path->leaf().c_str(), flags) != 0)
    return failed(path.value(), "cannot delete");
  return "deleted " + path->text();
}

}  // namespace gantry::workspace
