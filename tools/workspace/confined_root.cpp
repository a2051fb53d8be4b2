#include "workspace/confined_root.h"

#include <fcntl.h>
#include <linux/openat2.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

#include "common/utf8.h"

namespace gantry::workspace {
namespace {

constexpr int kEagainRetries = 16;  // openat2 may ask for a retry when a rename races

int openat2Call(int dirfd, const char* path, int flags) {
  struct open_how how {};
  how.flags = static_cast<unsigned>(flags) | O_CLOEXEC;
  how.resolve = RESOLVE_BENEATH | RESOLVE_NO_MAGICLINKS;
  return static_cast<int>(::syscall(SYS_openat2, dirfd, path, &how, sizeof how));
}

bool kernelHasOpenat2(int root) {
  const int fd = openat2Call(root, ".", O_PATH | O_DIRECTORY);
  if (fd >= 0) ::close(fd);
  return fd >= 0 || errno != ENOSYS;
}

/// Sets errno to ELOOP when name is a symlink (the reason an O_NOFOLLOW open failed).
int blameSymlink(int dirfd, const std::string& name) {
  const int error = errno;
  struct stat st {};
  const bool link =
      ::fstatat(dirfd, name.c_str(), &st, AT_SYMLINK_NOFOLLOW) == 0 && S_ISLNK(st.st_mode);
  errno = link ? ELOOP : error;
  return -1;
}

/// Opens one directory component of a walk; a symlink (or anything but a directory) fails.
int openComponent(int dirfd, const std::string& name) {
  const int fd = ::openat(dirfd, name.c_str(), O_PATH | O_NOFOLLOW | O_DIRECTORY | O_CLOEXEC);
  if (fd < 0) return blameSymlink(dirfd, name);
  struct stat st {};
  if (::fstat(fd, &st) != 0 || !S_ISDIR(st.st_mode)) {
    ::close(fd);
    errno = ELOOP;
    return -1;
  }
  return fd;
}

/// The last component of a walk: O_NOFOLLOW refuses a symlink, and an O_PATH open of one
/// (which would open the link itself) is refused by its type.
int openLeaf(int dirfd, const std::string& name, int flags) {
  const int fd = ::openat(dirfd, name.c_str(), flags | O_NOFOLLOW | O_CLOEXEC);
  if (fd < 0) return blameSymlink(dirfd, name);
  struct stat st {};
  if (::fstat(fd, &st) != 0 || S_ISLNK(st.st_mode)) {
    ::close(fd);
    errno = ELOOP;
    return -1;
  }
  return fd;
}

}  // namespace

Fd& Fd::operator=(Fd&& other) noexcept {
  if (this != &other) {
    if (fd_ >= 0) ::close(fd_);
    fd_ = other.release();
  }
  return *this;
}

Fd::~Fd() {
  if (fd_ >= 0) ::close(fd_);
}

int Fd::release() {
  const int fd = fd_;
  fd_ = -1;
  return fd;
}

ConfinedRoot::ConfinedRoot(Fd root, std::string dir, Resolver resolver)
    : root_(std::move(root)), dir_(std::move(dir)), resolver_(resolver) {}

Result<ConfinedRoot> ConfinedRoot::open(const std::string& dir, Resolver preferred) {
  Fd root(::open(dir.c_str(), O_PATH | O_DIRECTORY | O_CLOEXEC));
  if (root.get() < 0) {
    return Status::error("--root " + dir + ": " + std::strerror(errno) +
                         " (it must be a directory)");
  }
  const bool has = kernelHasOpenat2(root.get());
  if (preferred == Resolver::kOpenat2 && !has) {
    return Status::error("openat2 is not available on this kernel (use --resolve=walk)");
  }
  const Resolver chosen =
      preferred == Resolver::kWalk || !has ? Resolver::kWalk : Resolver::kOpenat2;
  return ConfinedRoot(std::move(root), dir, chosen);
}

Result<Fd> ConfinedRoot::openAt(const RelPath& path, int flags) const {
  return resolver_ == Resolver::kOpenat2 ? openWithOpenat2(path, flags) : openByWalk(path, flags);
}

Result<Fd> ConfinedRoot::openParent(const RelPath& path) const {
  if (path.isRoot()) return Status::error("path '.': the workspace root itself cannot be changed");
  return openAt(path.parent(), O_PATH | O_DIRECTORY);
}

Result<Fd> ConfinedRoot::openWithOpenat2(const RelPath& path, int flags) const {
  const std::string text = path.text();
  for (int attempt = 0; attempt < kEagainRetries; ++attempt) {
    const int fd = openat2Call(root_.get(), text.c_str(), flags);
    if (fd >= 0) return Fd(fd);
    if (errno != EAGAIN && errno != EINTR) break;
  }
  return Status::error(describeOpenError(path, errno, resolver_));
}

Result<Fd> ConfinedRoot::openByWalk(const RelPath& path, int flags) const {
  Fd dir(::fcntl(root_.get(), F_DUPFD_CLOEXEC, 0));
  if (path.isRoot()) {
    // The root itself, reopened with the caller's flags through its own descriptor.
    Fd fd(::openat(root_.get(), ".", flags | O_CLOEXEC));
    if (fd.get() < 0) return Status::error(describeOpenError(path, errno, resolver_));
    return fd;
  }
  for (std::size_t i = 0; i + 1 < path.parts.size(); ++i) {
    Fd next(openComponent(dir.get(), path.parts[i]));
    if (next.get() < 0) return Status::error(describeOpenError(path, errno, resolver_));
    dir = std::move(next);
  }
  Fd leaf(openLeaf(dir.get(), path.leaf(), flags));
  if (leaf.get() < 0) return Status::error(describeOpenError(path, errno, resolver_));
  return leaf;
}

std::string describeOpenError(const RelPath& path, int error, Resolver resolver) {
  const std::string name = "path '" + toolserver::printable(path.text()) + "': ";
  switch (error) {
    case EXDEV: return name + "leads outside the workspace root (a symlink or mount); refused";
    case ELOOP:
      return name + (resolver == Resolver::kWalk
                         ? "is or passes through a symlink; refused (symlinks are not followed)"
                         : "is a symlink loop or a symlink that cannot be followed; refused");
    case ENOENT: return name + "does not exist";
    case ENOTDIR: return name + "a component is not a directory";
    case EACCES:
    case EPERM: return name + "permission denied";
    case EISDIR: return name + "is a directory";
    default: return name + std::strerror(error);
  }
}

}  // namespace gantry::workspace
