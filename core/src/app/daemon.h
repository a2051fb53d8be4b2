#pragma once
/// The daemon (`gantry run`): config → store → modules → tools → agent → channel loop, and
/// a graceful stop. Boot is fail-fast: any failure is one line on stderr and exit 1.

namespace gantry::app {

/// Runs until the channel ends (pipe EOF: exit 0 after the last reply) or a signal stops
/// it. Returns the process exit code.
int runDaemon();

}  // namespace gantry::app
