#pragma once
/// The kernel-enforced boundary of gantry-workspace: every file is opened beneath one root
/// directory descriptor, either with openat2(RESOLVE_BENEATH | RESOLVE_NO_MAGICLINKS) — the
/// kernel refuses "..", absolute symlinks and any symlink leading out, atomically, so a
/// symlink swapped in during a call cannot win — or, where the kernel lacks openat2, by a
/// walk that opens one component at a time with O_NOFOLLOW and refuses every symlink.

#include <string>

#include "gantry/status.h"
#include "workspace/path_check.h"

namespace gantry::workspace {

/// An owned file descriptor; closed on destruction. Move-only.
class Fd final {
 public:
  Fd() = default;
  explicit Fd(int fd) : fd_(fd) {}
  Fd(Fd&& other) noexcept : fd_(other.release()) {}
  Fd& operator=(Fd&& other) noexcept;
  Fd(const Fd&) = delete;
  Fd& operator=(const Fd&) = delete;
  ~Fd();

  int get() const { return fd_; }
  int release();

 private:
  int fd_ = -1;
};

/// How paths are resolved beneath the root.
enum class Resolver { kAuto, kOpenat2, kWalk };

/// The root directory, held open for the process's life. Thread-compatible: const methods
/// may be called from any thread.
class ConfinedRoot final {
 public:
  /// Opens dir (which must be a directory) as the root. kAuto picks openat2 when the kernel
  /// has it and the walk otherwise; kOpenat2 fails when it is missing.
  static Result<ConfinedRoot> open(const std::string& dir, Resolver preferred);

  /// Opens path beneath the root with flags (O_RDONLY, O_PATH, O_WRONLY|O_APPEND...; never
  /// O_CREAT). Failures name the path and say why (outside the root, loop, missing...).
  Result<Fd> openAt(const RelPath& path, int flags) const;

  /// Opens the directory holding path's last component, for the *at() calls that create,
  /// rename or remove that name. Refused for the root itself.
  Result<Fd> openParent(const RelPath& path) const;

  Resolver resolver() const { return resolver_; }
  const std::string& dir() const { return dir_; }

 private:
  ConfinedRoot(Fd root, std::string dir, Resolver resolver);
  Result<Fd> openWithOpenat2(const RelPath& path, int flags) const;
  Result<Fd> openByWalk(const RelPath& path, int flags) const;

  Fd root_;
  std::string dir_;
  Resolver resolver_;
};

/// The message for an errno from opening path beneath the root.
std::string describeOpenError(const RelPath& path, int error, Resolver resolver);

}  // namespace gantry::workspace
