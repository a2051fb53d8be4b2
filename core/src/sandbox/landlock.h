#pragma once
/// Landlock (landlock(7)), the kernel's unprivileged sandbox: a ruleset built in the parent
/// from the paths a child may reach, and the few system calls the child makes between fork
/// and exec to enter it.

#include <cstdint>
#include <string>
#include <vector>

#include "gantry/status.h"

namespace gantry::sandbox {

/// The highest Landlock ABI the running kernel offers; an error naming why when it offers
/// none (not built in, disabled at boot, or the system call missing). Thread-safe.
Result<int> landlockAbi();

/// What a rule allows beneath a path.
enum class Access {
  kReadExecute,  ///< read files, list directories, execute programs
  kReadWrite,    ///< everything the ruleset handles: create, write, remove, truncate…
  kDevice,       ///< a device file (/dev/null): read, write, truncate, ioctl
};

struct Rule {
  std::string path;  ///< absolute; a directory (its whole subtree) or a single file
  Access access = Access::kReadExecute;
};

/// An owned Landlock ruleset descriptor (close-on-exec). Not copyable.
class Ruleset {
 public:
  /// Creates a ruleset for abi that handles every filesystem right that ABI knows (what no
  /// rule grants is denied), scopes signals and abstract unix sockets from ABI 6, and adds
  /// one rule per entry. Fails naming the path that could not be opened or added.
  static Result<Ruleset> build(int abi, const std::vector<Rule>& rules);
  Ruleset() = default;
  ~Ruleset();
  Ruleset(Ruleset&& other) noexcept;
  Ruleset& operator=(Ruleset&& other) noexcept;
  Ruleset(const Ruleset&) = delete;
  Ruleset& operator=(const Ruleset&) = delete;

  int fd() const { return fd_; }
  int abi() const { return abi_; }

 private:
  int fd_ = -1;
  int abi_ = 0;
};

/// In a forked child, before exec: sets no_new_privs, adds the child's own /proc entry
/// (which the parent cannot name), and restricts the calling thread to ruleset_fd. Uses only
/// system calls (async-signal-safe). 0 on success, else the errno of the step that failed.
int enterRuleset(int ruleset_fd);

}  // namespace gantry::sandbox
