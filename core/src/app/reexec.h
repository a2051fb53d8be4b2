#pragma once
/// Replaces the process with a fresh start of the same program and arguments (same pid, so a
/// service manager sees no exit): how a running instance takes up a changed vault.

namespace gantry::app {

/// Only returns on failure (logged), with exit code 1.
int reexecSelf();

}  // namespace gantry::app
