#include "sandbox/landlock.h"

#include <fcntl.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

namespace gantry::sandbox {
namespace {

// Debian 12's kernel headers stop at ABI 2; the later rights and scopes are spelled out here
// with the values the kernel's uapi header gives them.
constexpr std::uint64_t kExecute = 1ULL << 0;
constexpr std::uint64_t kWriteFile = 1ULL << 1;
constexpr std::uint64_t kReadFile = 1ULL << 2;
constexpr std::uint64_t kReadDir = 1ULL << 3;
constexpr std::uint64_t kAbi1All = (1ULL << 13) - 1;     // execute … make_sym
constexpr std::uint64_t kRefer = 1ULL << 13;             // ABI 2
constexpr std::uint64_t kTruncate = 1ULL << 14;          // ABI 3
constexpr std::uint64_t kIoctlDev = 1ULL << 15;          // ABI 5
constexpr std::uint64_t kScopeAbstractUnix = 1ULL << 0;  // ABI 6
constexpr std::uint64_t kScopeSignal = 1ULL << 1;        // ABI 6
constexpr std::uint64_t kFileRights = kExecute | kWriteFile | kReadFile | kTruncate | kIoctlDev;
constexpr unsigned kCreateRulesetVersion = 1U << 0;
constexpr int kRulePathBeneath = 1;

struct RulesetAttr {
  std::uint64_t handled_access_fs;
  std::uint64_t handled_access_net;
  std::uint64_t scoped;
};

struct PathBeneathAttr {
  std::uint64_t allowed_access;
  std::int32_t parent_fd;
} __attribute__((packed));

std::uint64_t handledRights(int abi) {
  std::uint64_t rights = kAbi1All;
  if (abi >= 2) rights |= kRefer;
  if (abi >= 3) rights |= kTruncate;
  if (abi >= 5) rights |= kIoctlDev;
  return rights;
}

std::uint64_t rightsFor(Access access, std::uint64_t handled, bool directory) {
  std::uint64_t rights = handled;
  switch (access) {
    case Access::kReadExecute: rights = kExecute | kReadFile | kReadDir; break;
    case Access::kDevice: rights = kReadFile | kWriteFile | kTruncate | kIoctlDev; break;
    case Access::kReadWrite: break;
  }
  rights &= handled;
  return directory ? rights : rights & kFileRights;
}

long addRule(int ruleset, int path_fd, std::uint64_t rights) {
  PathBeneathAttr attr{rights, path_fd};
  return ::syscall(SYS_landlock_add_rule, ruleset, kRulePathBeneath, &attr, 0U);
}

Status addPath(int ruleset, std::uint64_t handled, const Rule& rule) {
  const int path_fd = ::open(rule.path.c_str(), O_PATH | O_CLOEXEC);
  if (path_fd < 0) {
    return Status::error("sandbox: cannot open " + rule.path + ": " + std::strerror(errno));
  }
  struct stat info {};
  const bool directory = ::fstat(path_fd, &info) == 0 && S_ISDIR(info.st_mode);
  const long rc = addRule(ruleset, path_fd, rightsFor(rule.access, handled, directory));
  const int error = errno;
  ::close(path_fd);
  if (rc != 0) {
    return Status::error("sandbox: cannot grant " + rule.path + ": " + std::strerror(error));
  }
  return Status::ok();
}

}  // namespace

Result<int> landlockAbi() {
  const long abi = ::syscall(SYS_landlock_create_ruleset, nullptr, 0, kCreateRulesetVersion);
  if (abi > 0) return static_cast<int>(abi);
  const int error = errno;
  if (error == ENOSYS) return Status::error("the kernel has no Landlock (Linux 5.13 or later)");
  if (error == EOPNOTSUPP) {
    return Status::error("Landlock is disabled in this kernel (add landlock to its lsm= list)");
  }
  return Status::error(std::string("Landlock is unavailable: ") + std::strerror(error));
}

Result<Ruleset> Ruleset::build(int abi, const std::vector<Rule>& rules) {
  const std::uint64_t handled = handledRights(abi);
  RulesetAttr attr{handled, 0, abi >= 6 ? kScopeAbstractUnix | kScopeSignal : 0};
  const long fd = ::syscall(SYS_landlock_create_ruleset, &attr, sizeof attr, 0U);
  if (fd < 0) {
    return Status::error(std::string("sandbox: cannot create a Landlock ruleset: ") +
                         std::strerror(errno));
  }
  Ruleset ruleset;
  ruleset.fd_ = static_cast<int>(fd);
  ruleset.abi_ = abi;
  for (const Rule& rule : rules) {
    if (Status s = addPath(ruleset.fd_, handled, rule); !s.isOk()) return s;
  }
  return ruleset;
}

Ruleset::~Ruleset() {
  if (fd_ >= 0) ::close(fd_);
}

Ruleset::Ruleset(Ruleset&& other) noexcept : fd_(other.fd_), abi_(other.abi_) { other.fd_ = -1; }

Ruleset& Ruleset::operator=(Ruleset&& other) noexcept {
  if (this != &other) {
    if (fd_ >= 0) ::close(fd_);
    fd_ = other.fd_;
    abi_ = other.abi_;
    other.fd_ = -1;
  }
  return *this;
}

int enterRuleset(int ruleset_fd) {
  if (::prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0) return errno;
  const int self = ::open("/proc/self", O_PATH | O_CLOEXEC);
  if (self >= 0) {
    addRule(ruleset_fd, self, kReadFile | kReadDir);
    ::close(self);
  }
  if (::syscall(SYS_landlock_restrict_self, ruleset_fd, 0U) != 0) return errno;
  return 0;
}

}  // namespace gantry::sandbox
