#include "workspace/file_checks.h"

#include <fcntl.h>

#include <set>

#include "common/utf8.h"

namespace gantry::workspace {
namespace {

Result<struct stat> statFd(const RelPath& path, int fd) {
  struct stat st {};
  if (::fstat(fd, &st) != 0) return refused(path, "cannot be examined");
  return st;
}

Status checkRegular(const RelPath& path, const struct stat& st, std::uint64_t max_bytes) {
  if (S_ISDIR(st.st_mode)) return refused(path, "is a directory (use list_dir)");
  if (!S_ISREG(st.st_mode)) {
    return refused(
        path, "is a " + typeName(st.st_mode) + "; device files, FIFOs and sockets are refused");
  }
  if (st.st_nlink > 1) {
    return refused(path, "has " + std::to_string(st.st_nlink) +
                             " hard links; a file with other names may be shared with a place "
                             "outside the root, so it is refused");
  }
  if (static_cast<std::uint64_t>(st.st_size) > max_bytes) {
    return refused(path, "is " + std::to_string(st.st_size) + " bytes, over the " +
                             std::to_string(max_bytes) + "-byte cap (--max-file-bytes)");
  }
  return Status::ok();
}

}  // namespace

std::string typeName(mode_t mode) {
  if (S_ISREG(mode)) return "file";
  if (S_ISDIR(mode)) return "directory";
  if (S_ISLNK(mode)) return "symlink";
  if (S_ISFIFO(mode)) return "FIFO";
  if (S_ISSOCK(mode)) return "socket";
  if (S_ISCHR(mode)) return "character device";
  if (S_ISBLK(mode)) return "block device";
  return "special file";
}

Status refused(const RelPath& path, const std::string& why) {
  return Status::error("path '" + toolserver::printable(path.text()) + "': " + why);
}

Result<OpenFile> openRegular(const ConfinedRoot& root, const RelPath& path, int flags,
                             std::uint64_t max_bytes) {
  // Look first through an O_PATH descriptor, which opens nothing: a FIFO or device is
  // refused before an open could block or have an effect.
  auto probe = root.openAt(path, O_PATH);
  if (!probe.isOk()) return probe.status();
  auto before = statFd(path, probe->get());
  if (!before.isOk()) return before.status();
  if (auto status = checkRegular(path, before.value(), max_bytes); !status.isOk()) return status;
  auto opened = root.openAt(path, flags | O_NONBLOCK | O_NOCTTY);
  if (!opened.isOk()) return opened.status();
  auto after = statFd(path, opened->get());
  if (!after.isOk()) return after.status();
  if (after->st_ino != before->st_ino || after->st_dev != before->st_dev) {
    return refused(path, "changed during the call; refused");
  }
  if (auto status = checkRegular(path, after.value(), max_bytes); !status.isOk()) return status;
  return OpenFile{std::move(opened.value()), after.value()};
}

Result<Fd> openDirectory(const ConfinedRoot& root, const RelPath& path) {
  auto dir = root.openAt(path, O_RDONLY | O_DIRECTORY | O_NONBLOCK);
  if (dir.isOk()) return dir;
  auto probe = root.openAt(path, O_PATH);
  if (probe.isOk()) return refused(path, "is not a directory");
  return dir.status();
}

std::optional<std::string> runsCode(const RelPath& path) {
  static const std::set<std::string> start_up = {
      ".envrc",    ".bashrc",   ".bash_profile",   ".bash_login", ".bash_logout", ".profile",
      ".zshrc",    ".zshenv",   ".zprofile",       ".zlogin",     ".zlogout",     ".kshrc",
      ".cshrc",    ".tcshrc",   ".login",          ".logout",     ".gitconfig",   ".xinitrc",
      ".xsession", ".xprofile", ".pam_environment"};
  static const std::set<std::string> config_dirs = {"autostart", "systemd", "fish", "git",
                                                    "environment.d"};
  for (std::size_t i = 0; i < path.parts.size(); ++i) {
    const std::string& part = path.parts[i];
    if (part == ".git") return "is inside a .git folder, whose hooks and config run commands";
    if (part == ".ssh")
      return "is inside a .ssh folder (keys that let a login in, commands run at login)";
    if (part == ".config" && i + 1 < path.parts.size() && config_dirs.count(path.parts[i + 1])) {
      return "is a start-up configuration under .config/" + path.parts[i + 1] +
             " that runs commands";
    }
  }
  if (start_up.count(path.leaf())) {
    return "is a shell or session start-up file (" + path.leaf() + ") that runs commands";
  }
  return std::nullopt;
}

}  // namespace gantry::workspace
