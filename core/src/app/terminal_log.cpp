#include "app/terminal_log.h"

#include <unistd.h>

#include <filesystem>

#include "log/log.h"

namespace gantry::app {

bool replOwnsTerminal(std::string_view channel, bool stdin_tty, bool stdout_tty) {
  return channel == "stdio" && stdin_tty && stdout_tty;
}

std::string logFilePath(const config::Config& config) {
  if (!config.log_file.empty()) return config.log_file;
  return (std::filesystem::path(config.data_dir) / "gantry.log").string();
}

Result<std::string> routeLogsForTerminal(const config::Config& config) {
  if (!replOwnsTerminal(config.channel, ::isatty(STDIN_FILENO) == 1,
                        ::isatty(STDOUT_FILENO) == 1)) {
    return std::string();
  }
  std::string path = logFilePath(config);
  if (Status s = log::toFile(path, kLogFileMaxBytes); !s.isOk()) {
    return Status::error("LOG_FILE: cannot open " + s.message());
  }
  return path;
}

}  // namespace gantry::app
