#include "app/data_dir_check.h"

#include <fcntl.h>
#include <pwd.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <filesystem>

namespace gantry::app {
namespace {

/// "gantry (uid 998)", or "uid 998" for a user without a passwd entry (a container's).
std::string effectiveUser() {
  const uid_t uid = ::geteuid();
  std::string id = "uid " + std::to_string(uid);
  const passwd* entry = ::getpwuid(uid);
  return entry && entry->pw_name ? std::string(entry->pw_name) + " (" + id + ")" : id;
}

/// Why path cannot be accessed with mode by the effective user; "" when it can.
std::string denied(const std::string& path, int mode) {
  if (::faccessat(AT_FDCWD, path.c_str(), mode, AT_EACCESS) == 0) return "";
  return std::strerror(errno);
}

}  // namespace

Status checkDataDirWritable(const std::string& dir) {
  std::string why = denied(dir, W_OK | X_OK);
  std::string path = dir;
  for (const char* name : {"gantry.db", "gantry.db-wal", "gantry.db-shm"}) {
    if (!why.empty()) break;
    path = (std::filesystem::path(dir) / name).string();
    std::error_code ec;
    if (std::filesystem::exists(path, ec)) why = denied(path, R_OK | W_OK);
  }
  if (why.empty()) return Status::ok();
  return Status::error("DATA_DIR: " + path + " is not writable by user " + effectiveUser() + ": " +
                       why + " (give that user the directory, or point DATA_DIR elsewhere)");
}

}  // namespace gantry::app
