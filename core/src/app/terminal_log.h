#pragma once
/// Where logs go while the stdio REPL owns a terminal (DESIGN 9): to a file in the data
/// directory, with only warnings and errors on the terminal, one readable line each.

#include <cstdint>
#include <string>
#include <string_view>

#include "config/config.h"
#include "gantry/status.h"

namespace gantry::app {

/// The largest size of the log file before it is rotated to LOG_FILE.1.
inline constexpr std::uintmax_t kLogFileMaxBytes = 10u << 20;

/// True when the REPL owns the terminal: the stdio channel, stdin and stdout terminals.
bool replOwnsTerminal(std::string_view channel, bool stdin_tty, bool stdout_tty);

/// LOG_FILE, or gantry.log in DATA_DIR.
std::string logFilePath(const config::Config& config);

/// When the REPL owns this process's terminal, sends the records to logFilePath() and
/// returns that path; "" when it does not (records stay JSON lines on stderr). An error
/// naming LOG_FILE when the file cannot be opened.
Result<std::string> routeLogsForTerminal(const config::Config& config);

}  // namespace gantry::app
