#include "sandbox_attacks.h"

#include <dirent.h>
#include <fcntl.h>
#include <signal.h>
#include <sys/ptrace.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <vector>

namespace gantry::fakes {
namespace {

std::string blocked(const std::string& name, int error) {
  return name + ": blocked (" + std::strerror(error) + ")\n";
}

std::string allowed(const std::string& name, const std::string& what) {
  return name + ": ALLOWED (" + what + ")\n";
}

/// Opens path with flags and reads from it; ALLOWED when any byte came back (or, for a write
/// open, when the open succeeded).
std::string tryOpen(const std::string& name, const std::string& path, int flags) {
  const int fd = ::open(path.c_str(), flags | O_CLOEXEC, 0600);
  if (fd < 0) return blocked(name, errno);
  char buffer[64];
  const bool writing = (flags & O_ACCMODE) != O_RDONLY;
  const ssize_t n = writing ? 0 : ::read(fd, buffer, sizeof buffer);
  const int error = errno;
  ::close(fd);
  if (!writing && n < 0) return blocked(name, error);
  return allowed(name, writing ? "opened for writing" : std::to_string(n) + " bytes read");
}

std::string tryList(const std::string& name, const std::string& path) {
  DIR* dir = ::opendir(path.c_str());
  if (dir == nullptr) return blocked(name, errno);
  int entries = 0;
  while (::readdir(dir) != nullptr) ++entries;
  ::closedir(dir);
  return allowed(name, std::to_string(entries) + " entries");
}

std::string tryMem(pid_t parent) {
  const std::string path = "/proc/" + std::to_string(parent) + "/mem";
  const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) return blocked("proc_mem", errno);
  ::close(fd);
  return allowed("proc_mem", "opened");
}

std::string tryParentFds(pid_t parent) {
  const std::string dir = "/proc/" + std::to_string(parent) + "/fd";
  std::string out = tryList("proc_fd_list", dir);
  out += tryOpen("proc_fd_3", dir + "/3", O_RDONLY);
  return out;
}

// Attached, the host stops until it is let go: wait for the stop, then detach at once, so an
// attack that succeeds (without the sandbox, as root) does not leave the host stopped.
std::string tryPtrace(pid_t parent) {
  if (::ptrace(PTRACE_ATTACH, parent, nullptr, nullptr) != 0) return blocked("ptrace", errno);
  int status = 0;
  ::waitpid(parent, &status, __WALL);
  ::ptrace(PTRACE_DETACH, parent, nullptr, nullptr);
  return allowed("ptrace", "attached to the host");
}

std::string trySignal(pid_t parent) {
  // SIGWINCH is ignored by default: were it delivered, the host would not notice.
  if (::kill(parent, SIGWINCH) != 0) return blocked("signal", errno);
  return allowed("signal", "SIGWINCH delivered");
}

std::string tryInherited() {
  std::string found;
  for (int fd = 3; fd < 256; ++fd) {
    struct stat info {};
    if (::fstat(fd, &info) != 0) continue;
    char link[256] = {};
    const std::string path = "/proc/self/fd/" + std::to_string(fd);
    const ssize_t n = ::readlink(path.c_str(), link, sizeof link - 1);
    found += std::to_string(fd) + "=" + (n > 0 ? std::string(link, n) : "?") + " ";
  }
  if (found.empty()) return "inherited_fd: blocked (none open above 2)\n";
  return allowed("inherited_fd", found);
}

}  // namespace

std::string attackHost(const AttackTargets& targets) {
  const pid_t parent = ::getppid();
  const std::string proc = "/proc/" + std::to_string(parent);
  std::string out;
  out += tryOpen("proc_environ", proc + "/environ", O_RDONLY);
  out += tryMem(parent);
  out += tryParentFds(parent);
  out += tryPtrace(parent);
  out += tryOpen("key_file", targets.key_file, O_RDONLY);
  out += tryOpen("vault", targets.data_dir + "/vault", O_RDONLY);
  out += tryOpen("db_read", targets.data_dir + "/gantry.db", O_RDONLY);
  out += tryOpen("db_write", targets.data_dir + "/gantry.db", O_RDWR);
  out += tryOpen("db_wal_write", targets.data_dir + "/gantry.db-wal", O_RDWR);
  out += tryOpen("data_dir_create", targets.data_dir + "/planted", O_WRONLY | O_CREAT);
  out += tryList("data_dir_list", targets.data_dir);
  out += tryOpen("persona", targets.persona_dir + "/IDENTITY.md", O_RDONLY);
  out += tryList("other_server_state", targets.other_state);
  out += trySignal(parent);
  out += tryInherited();
  return out;
}

}  // namespace gantry::fakes
