#include "app/terminal_log.h"

#include <catch2/catch.hpp>

#include "log/log.h"

using gantry::LogLevel;
using gantry::app::logFilePath;
using gantry::app::replOwnsTerminal;

TEST_CASE("the REPL owns the terminal only on stdio with stdin and stdout terminals", "[app]") {
  CHECK(replOwnsTerminal("stdio", true, true));
  CHECK_FALSE(replOwnsTerminal("stdio", false, true));  // piped input
  CHECK_FALSE(replOwnsTerminal("stdio", true, false));  // output redirected
  CHECK_FALSE(replOwnsTerminal("telegram", true, true));
}

TEST_CASE("the log file is LOG_FILE, else gantry.log in DATA_DIR", "[app]") {
  gantry::config::Config config;
  config.data_dir = "/srv/gantry";
  CHECK(logFilePath(config) == "/srv/gantry/gantry.log");
  config.log_file = "/tmp/g.log";
  CHECK(logFilePath(config) == "/tmp/g.log");
}

TEST_CASE("a record reads as one line for the terminal", "[app]") {
  CHECK(gantry::log::readableLine(LogLevel::kWarn, "mcp_server_down",
                                  {{"name", "fetch"}, {"error", "exit 1\nstderr: boom"}}) ==
        "warning: mcp_server_down (name=fetch, error=exit 1 stderr: boom)\n");
  CHECK(gantry::log::readableLine(LogLevel::kError, "reply_send_failed", {}) ==
        "error: reply_send_failed\n");
}
