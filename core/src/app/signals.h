#pragma once
/// Signals: SIGTERM/SIGINT begin a graceful stop, SIGHUP reloads the persona. Handled on a
/// dedicated thread with sigwait, so no work happens inside a signal handler.

#include <functional>

namespace gantry::app {

/// Blocks the signals in the calling thread (call before starting any thread, so every
/// thread inherits the mask).
void blockSignals();

/// Starts the detached signal thread. on_stop runs once per SIGTERM/SIGINT, on_reload per
/// SIGHUP, on that thread.
void startSignalThread(std::function<void()> on_stop, std::function<void()> on_reload);

}  // namespace gantry::app
